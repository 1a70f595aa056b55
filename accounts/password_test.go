package accounts_test

import (
	"encoding/base64"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/argon2"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/errcode"
)

func TestCheckPassword(t *testing.T) {
	const email = "alice.banda.mw@example.com"
	tests := []struct {
		name, pw string
		cause    error
	}{
		{"12 ASCII", "abcdefghijkl", nil},
		{"11 ASCII", "abcdefghijk", accounts.ErrPasswordTooShort},
		{"empty", "", accounts.ErrPasswordTooShort},
		{"12 code points of 2 bytes", strings.Repeat("é", 12), nil},
		{"11 code points of 2 bytes (22 bytes)", strings.Repeat("é", 11), accounts.ErrPasswordTooShort},
		{"12 emoji", strings.Repeat("🔑", 12), nil},
		{"11 emoji (44 bytes)", strings.Repeat("🔑", 11), accounts.ErrPasswordTooShort},
		{"emoji with zero-width joiners", "👩‍💻👩‍💻👩‍💻👩‍💻", nil},
		{"spaces inside count once per run", "abc      defghij", accounts.ErrPasswordTooShort},
		{"single spaces count", "abc def ghi jk", nil},
		{"a passphrase", "correct horse battery staple", nil},
		{"only spaces", strings.Repeat(" ", 20), accounts.ErrPasswordTooShort},
		{"128 code points", strings.Repeat("a", 128), nil},
		{"129 code points", strings.Repeat("a", 129), accounts.ErrPasswordTooLong},
		{"128 code points of 4 bytes", strings.Repeat("🔑", 128), nil},
		{"a very long input", strings.Repeat("a", 10000), accounts.ErrPasswordTooLong},
		{"the email", email, accounts.ErrPasswordIsEmail},
		{"the email in capitals", "ALICE.BANDA.MW@EXAMPLE.COM", accounts.ErrPasswordIsEmail},
		{"the local part", "Alice.Banda.MW", accounts.ErrPasswordIsEmail},
		{"the email inside a longer password", "my " + email, nil},
		{"a tab", "abcdef\tghijkl", accounts.ErrPasswordCharacters},
		{"a newline", "abcdefghijkl\n", accounts.ErrPasswordCharacters},
		{"NUL", "abcdef\x00ghijkl", accounts.ErrPasswordCharacters},
		{"invalid UTF-8", "abcdefghijkl\xff", accounts.ErrPasswordCharacters},
		// NFKC: the ligature is two letters, the full-width letters are
		// ASCII, so a long-looking string may be the email.
		{"full-width email", "ａｌｉｃｅ．ｂａｎｄａ．ｍｗ", accounts.ErrPasswordIsEmail},
		{"ligatures count as their letters", strings.Repeat("ﬁ", 6), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := accounts.CheckPassword(tt.pw, email)
			if tt.cause == nil {
				assert.NoError(t, err)
				return
			}
			assertCoded(t, err, errcode.ValidationError, tt.cause, "")
		})
	}
	assert.NoError(t, accounts.CheckPassword(email, ""), "no email, no email rule")
	assert.NoError(t, accounts.CheckPassword("abc      defghijk", email), "a run of spaces counts once")
	for cause, msg := range map[error]string{
		accounts.ErrPasswordTooShort: "The password must be at least 12 characters.",
		accounts.ErrPasswordTooLong:  "The password must be at most 128 characters.",
		accounts.ErrPasswordIsEmail:  "The password may not be your email address.",
	} {
		var pw string
		switch cause {
		case accounts.ErrPasswordTooShort:
			pw = "short"
		case accounts.ErrPasswordTooLong:
			pw = strings.Repeat("x", 200)
		default:
			pw = email
		}
		assertCoded(t, accounts.CheckPassword(pw, email), errcode.ValidationError, cause, msg)
	}
}

var phc = regexp.MustCompile(`^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$`)

func TestHashPasswordFormat(t *testing.T) {
	h, err := accounts.HashPassword("correct horse battery staple", accounts.TestParams, seeded(1))
	require.NoError(t, err)
	m := phc.FindStringSubmatch(string(h))
	require.NotNil(t, m, string(h))
	assert.Equal(t, []string{"64", "1", "1"}, m[1:4])
	salt, err := base64.RawStdEncoding.DecodeString(m[4])
	require.NoError(t, err)
	key, err := base64.RawStdEncoding.DecodeString(m[5])
	require.NoError(t, err)
	assert.Len(t, salt, 16)
	assert.Len(t, key, 32)
	// The hash is argon2id itself, so any implementation can check it.
	assert.Equal(t, argon2.IDKey([]byte("correct horse battery staple"), salt, 1, 64, 1, 32), key)

	p, err := h.Params()
	require.NoError(t, err)
	assert.Equal(t, accounts.TestParams, p)

	h2, err := accounts.HashPassword("correct horse battery staple", accounts.TestParams, seeded(2))
	require.NoError(t, err)
	assert.NotEqual(t, h, h2, "a new salt each time")
	assert.True(t, h2.Verify("correct horse battery staple"))

	again, err := accounts.HashPassword("correct horse battery staple", accounts.TestParams, seeded(1))
	require.NoError(t, err)
	assert.Equal(t, h, again, "deterministic given the reader")
}

func TestHashPasswordDefaults(t *testing.T) {
	if testing.Short() {
		t.Skip("argon2id at OWASP's parameters")
	}
	h, err := accounts.HashPassword("correct horse battery staple", accounts.Params{}, seeded(1))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(h), "$argon2id$v=19$m=19456,t=2,p=1$"), h)
	p, err := h.Params()
	require.NoError(t, err)
	assert.Equal(t, accounts.DefaultParams, p)
	assert.True(t, h.Verify("correct horse battery staple"))
	assert.False(t, h.Verify("correct horse battery stapler"))
	assert.False(t, h.NeedsRehash(accounts.DefaultParams))
	assert.False(t, h.NeedsRehash(accounts.Params{}))
}

func TestHashPasswordErrors(t *testing.T) {
	for name, p := range map[string]accounts.Params{
		"no threads":        {Memory: 64, Time: 1, Threads: 0, SaltLength: 16, KeyLength: 32},
		"no passes":         {Memory: 64, Time: 0, Threads: 1, SaltLength: 16, KeyLength: 32},
		"too little memory": {Memory: 15, Time: 1, Threads: 2, SaltLength: 16, KeyLength: 32},
		"short salt":        {Memory: 64, Time: 1, Threads: 1, SaltLength: 4, KeyLength: 32},
		"short key":         {Memory: 64, Time: 1, Threads: 1, SaltLength: 16, KeyLength: 8},
	} {
		_, err := accounts.HashPassword("correct horse battery staple", p, seeded(1))
		assertCoded(t, err, errcode.InternalError, accounts.ErrInvalidParams, "")
		_ = name
	}
	_, err := accounts.HashPassword("correct horse battery staple", accounts.TestParams, failing{})
	assertCoded(t, err, errcode.InternalError, accounts.ErrRandom, "")
	assert.NotContains(t, errcode.Message(err), "fire", "the cause stays out of the message")
	_, err = accounts.HashPassword("correct horse battery staple", accounts.TestParams, nil)
	assertCoded(t, err, errcode.InternalError, accounts.ErrRandom, "")
	_, err = accounts.HashPassword("correct horse battery staple", accounts.TestParams, strings.NewReader("short"))
	assertCoded(t, err, errcode.InternalError, accounts.ErrRandom, "")
	_, err = accounts.HashPassword(strings.Repeat("a", 1000), accounts.TestParams, seeded(1))
	assertCoded(t, err, errcode.ValidationError, accounts.ErrPasswordTooLong, "")
}

func TestVerify(t *testing.T) {
	h, err := accounts.HashPassword("Ünïcödé pässwörd 🔑", accounts.TestParams, seeded(1))
	require.NoError(t, err)
	tests := []struct {
		pw   string
		want bool
	}{
		{"Ünïcödé pässwörd 🔑", true},
		// The same text in decomposed form (NFD) is the same password.
		{"U\u0308ni\u0308co\u0308de\u0301 pa\u0308sswo\u0308rd 🔑", true},
		{"ünïcödé pässwörd 🔑", false},
		{"Ünïcödé pässwörd 🔑 ", false},
		{"Ünïcödé pässwörd", false},
		{"", false},
		{"Ünïcödé pässwörd 🔑\xff", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, h.Verify(tt.pw), "%q", tt.pw)
	}
}

func TestMalformedHashes(t *testing.T) {
	good, err := accounts.HashPassword("correct horse battery staple", accounts.TestParams, seeded(1))
	require.NoError(t, err)
	s := string(good)
	for _, bad := range []string{
		"",
		"plaintext",
		strings.Replace(s, "argon2id", "argon2i", 1),
		strings.Replace(s, "v=19", "v=16", 1),
		strings.Replace(s, "m=64,t=1,p=1", "t=1,m=64,p=1", 1),
		strings.Replace(s, "m=64,t=1,p=1", "m=64,t=1", 1),
		strings.Replace(s, "m=64,t=1,p=1", "m=064,t=1,p=1", 1),
		strings.Replace(s, "m=64,t=1,p=1", "m=64,t=1,p=0", 1),
		strings.Replace(s, "m=64,t=1,p=1", "m=64,t=1,p=256", 1),
		strings.Replace(s, "m=64,t=1,p=1", "m=4,t=1,p=1", 1),
		strings.Replace(s, "m=64,t=1,p=1", "m=99999999,t=1,p=1", 1), // beyond 4 GiB
		strings.Replace(s, "m=64,t=1,p=1", "m=64,t=1000,p=1", 1),
		strings.Replace(s, "m=64,t=1,p=1", "m=-64,t=1,p=1", 1),
		s + "=",
		s + "$",
		s[:len(s)-1] + "*",
		strings.Replace(s, "$argon2id", "argon2id", 1),
		"$argon2id$v=19$m=64,t=1,p=1$$" + strings.Repeat("A", 43),
	} {
		h := accounts.PasswordHash(bad)
		assert.False(t, h.Verify("correct horse battery staple"), bad)
		assert.True(t, h.NeedsRehash(accounts.TestParams), bad)
		_, err := h.Params()
		assertCoded(t, err, errcode.InternalError, accounts.ErrMalformedHash, "")
	}
}

func TestNeedsRehash(t *testing.T) {
	h, err := accounts.HashPassword("correct horse battery staple", accounts.TestParams, seeded(1))
	require.NoError(t, err)
	raise := func(f func(*accounts.Params)) accounts.Params {
		p := accounts.TestParams
		f(&p)
		return p
	}
	tests := []struct {
		name string
		p    accounts.Params
		want bool
	}{
		{"same", accounts.TestParams, false},
		{"zero means the defaults", accounts.Params{}, true},
		{"defaults", accounts.DefaultParams, true},
		{"more memory", raise(func(p *accounts.Params) { p.Memory = 128 }), true},
		{"more passes", raise(func(p *accounts.Params) { p.Time = 2 }), true},
		{"more threads", raise(func(p *accounts.Params) { p.Threads = 2 }), true},
		{"longer key", raise(func(p *accounts.Params) { p.KeyLength = 64 }), true},
		{"longer salt", raise(func(p *accounts.Params) { p.SaltLength = 32 }), true},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, h.NeedsRehash(tt.p), tt.name)
	}
}

func TestSetAndChangePassword(t *testing.T) {
	u := testUser(t, "correct horse battery staple")
	assert.True(t, u.PasswordHash.Verify("correct horse battery staple"))

	_, err := u.SetPassword("alice@example.com", accounts.TestParams, seeded(2))
	assertCoded(t, err, errcode.ValidationError, accounts.ErrPasswordIsEmail, "")
	_, err = u.SetPassword("ALICE", accounts.TestParams, seeded(2))
	assertCoded(t, err, errcode.ValidationError, accounts.ErrPasswordTooShort, "")

	_, err = u.ChangePassword("wrong horse battery staple", "a brand new passphrase", accounts.TestParams, seeded(2))
	assertCoded(t, err, errcode.Unauthorized, accounts.ErrWrongPassword, "The current password is incorrect.")
	_, err = u.ChangePassword("correct horse battery staple", "too short", accounts.TestParams, seeded(2))
	assertCoded(t, err, errcode.ValidationError, accounts.ErrPasswordTooShort, "")

	v, err := u.ChangePassword("correct horse battery staple", "a brand new passphrase", accounts.TestParams, seeded(2))
	require.NoError(t, err)
	assert.True(t, v.PasswordHash.Verify("a brand new passphrase"))
	assert.False(t, v.PasswordHash.Verify("correct horse battery staple"))
	assert.True(t, u.PasswordHash.Verify("correct horse battery staple"), "the old value is untouched")
}

// TestAuthenticateNeverTells: an unknown email, a wrong password, a
// disabled user and a user with a broken hash all get one error, the same
// in every respect a caller could show or log.
func TestAuthenticateNeverTells(t *testing.T) {
	u := testUser(t, "correct horse battery staple")
	require.NoError(t, accounts.Authenticate(&u, "correct horse battery staple", accounts.TestParams))
	// NFKC on both sides.
	require.NoError(t, accounts.Authenticate(&u, "correct horse battery staple", accounts.TestParams))

	disabled := u.Disable(t0)
	broken := u
	broken.PasswordHash = "garbage"
	refused := map[string]error{
		"unknown email":           accounts.Authenticate(nil, "correct horse battery staple", accounts.TestParams),
		"wrong password":          accounts.Authenticate(&u, "correct horse battery stapler", accounts.TestParams),
		"empty password":          accounts.Authenticate(&u, "", accounts.TestParams),
		"overlong password":       accounts.Authenticate(&u, strings.Repeat("a", 5000), accounts.TestParams),
		"overlong, unknown":       accounts.Authenticate(nil, strings.Repeat("a", 5000), accounts.TestParams),
		"disabled, right":         accounts.Authenticate(&disabled, "correct horse battery staple", accounts.TestParams),
		"disabled, wrong":         accounts.Authenticate(&disabled, "nope nope nope nope", accounts.TestParams),
		"no hash":                 accounts.Authenticate(&broken, "correct horse battery staple", accounts.TestParams),
		"unknown, default params": accounts.Authenticate(nil, "x", accounts.Params{Threads: 1}),
	}
	want := refused["unknown email"]
	for name, err := range refused {
		assertCoded(t, err, errcode.Unauthorized, accounts.ErrInvalidCredentials, "The email or password is incorrect.")
		assert.Equal(t, want.Error(), err.Error(), name)
		assert.Equal(t, want, err, name)
	}
}

func TestVerifyDummy(t *testing.T) {
	// It runs for any input and parameters, valid or not, and panics on
	// none.
	for _, p := range []accounts.Params{accounts.TestParams, {Memory: 64, Time: 1, Threads: 1, SaltLength: 64, KeyLength: 64}, {Memory: 1}} {
		if p.Memory == 1 && testing.Short() {
			continue // falls back to the defaults
		}
		accounts.VerifyDummy("correct horse battery staple", p)
		accounts.VerifyDummy("", p)
		accounts.VerifyDummy("\xff", p)
	}
}

// BenchmarkAuthenticate compares the sign-in of a known user, an unknown
// email and a disabled user at OWASP's parameters: the three should cost
// the same (go test -bench Authenticate -run ^$ ./accounts).
func BenchmarkAuthenticate(b *testing.B) {
	h, err := accounts.HashPassword("correct horse battery staple", accounts.DefaultParams, seeded(1))
	require.NoError(b, err)
	u := accounts.User{ID: "usr_1", Email: "alice@example.com", PasswordHash: h}
	disabled := u.Disable(t0)
	for name, user := range map[string]*accounts.User{"known": &u, "unknown": nil, "disabled": &disabled} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				_ = accounts.Authenticate(user, "wrong horse battery staple", accounts.DefaultParams)
			}
		})
	}
}
