package accounts

import (
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"
	"golang.org/x/text/unicode/norm"

	"github.com/tambalapay/tambala/errcode"
)

// The bounds of a password, in Unicode code points of its NFKC form. The
// minimum counts a run of spaces once; there is no other composition rule.
// The maximum bounds what is hashed; no password is ever truncated.
const (
	MinPasswordLength = 12
	MaxPasswordLength = 128
)

// maxPasswordBytes bounds the bytes a verification hashes: a longer input
// cannot be a password of MaxPasswordLength code points.
const maxPasswordBytes = 4 * MaxPasswordLength

// Params are argon2id's cost parameters, recorded in every hash they make.
type Params struct {
	// Memory is in KiB.
	Memory uint32
	// Time is the number of passes over the memory.
	Time uint32
	// Threads is the degree of parallelism.
	Threads uint8
	// SaltLength and KeyLength are in bytes.
	SaltLength uint32
	KeyLength  uint32
}

// DefaultParams are OWASP's recommended argon2id parameters: 19 MiB of
// memory, 2 passes, 1 thread, a 16-byte salt and a 32-byte hash. The zero
// Params stand for them everywhere in this package.
var DefaultParams = Params{Memory: 19456, Time: 2, Threads: 1, SaltLength: 16, KeyLength: 32}

// TestParams are cheap parameters for tests only: 64 KiB, 1 pass. A hash
// made with them is no protection.
var TestParams = Params{Memory: 64, Time: 1, Threads: 1, SaltLength: 16, KeyLength: 32}

// The bounds a stored hash's parameters are parsed within, so that a
// corrupted record cannot make a verification run for minutes.
const (
	maxMemory  = 4 << 20 // 4 GiB, in KiB
	maxTime    = 64
	minSaltLen = 8
	maxSaltLen = 64
	minKeyLen  = 16
	maxKeyLen  = 64
)

func (p Params) orDefault() Params {
	if p == (Params{}) {
		return DefaultParams
	}
	return p
}

func (p Params) valid() bool {
	return p.Threads >= 1 && p.Time >= 1 && p.Time <= maxTime &&
		p.Memory >= 8*uint32(p.Threads) && p.Memory <= maxMemory &&
		p.SaltLength >= minSaltLen && p.SaltLength <= maxSaltLen &&
		p.KeyLength >= minKeyLen && p.KeyLength <= maxKeyLen
}

// PasswordHash is a password as stored: argon2id in the PHC string format,
// $argon2id$v=19$m=<KiB>,t=<passes>,p=<threads>$<salt>$<hash> with salt
// and hash in unpadded standard base64, so each hash carries the
// parameters it was made with and they can be raised later (NeedsRehash).
type PasswordHash string

var b64 = base64.RawStdEncoding.Strict()

// HashPassword hashes password (its NFKC form) with p (the zero Params are
// DefaultParams) and a salt read from random. It does not apply the
// password policy (CheckPassword); User.SetPassword does. internal_error
// (ErrInvalidParams or ErrRandom) when p is out of bounds or random fails;
// validation_error for a password that is not valid UTF-8 or too long to
// hash.
func HashPassword(password string, p Params, random io.Reader) (PasswordHash, error) {
	p = p.orDefault()
	if !p.valid() {
		return "", internal(ErrInvalidParams)
	}
	pw, err := normalizePassword(password)
	if err != nil {
		return "", err
	}
	salt, err := readRandom(random, int(p.SaltLength))
	if err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(pw), salt, p.Time, p.Memory, p.Threads, p.KeyLength)
	return formatHash(p, salt, key), nil
}

func formatHash(p Params, salt, key []byte) PasswordHash {
	return PasswordHash(fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.Memory, p.Time, p.Threads, b64.EncodeToString(salt), b64.EncodeToString(key)))
}

// parse splits h into its parameters, salt and key. Only the canonical
// form parses: the one formatHash writes back unchanged.
func (h PasswordHash) parse() (Params, []byte, []byte, error) {
	parts := strings.Split(string(h), "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" || parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return Params{}, nil, nil, ErrMalformedHash
	}
	var p Params
	fields := strings.Split(parts[3], ",")
	if len(fields) != 3 {
		return Params{}, nil, nil, ErrMalformedHash
	}
	for i, name := range []string{"m", "t", "p"} {
		v, ok := strings.CutPrefix(fields[i], name+"=")
		n, err := strconv.ParseUint(v, 10, 32)
		if !ok || err != nil {
			return Params{}, nil, nil, ErrMalformedHash
		}
		switch name {
		case "m":
			p.Memory = uint32(n)
		case "t":
			p.Time = uint32(n)
		case "p":
			if n > 255 {
				return Params{}, nil, nil, ErrMalformedHash
			}
			p.Threads = uint8(n)
		}
	}
	salt, err1 := b64.DecodeString(parts[4])
	key, err2 := b64.DecodeString(parts[5])
	if err1 != nil || err2 != nil {
		return Params{}, nil, nil, ErrMalformedHash
	}
	p.SaltLength, p.KeyLength = uint32(len(salt)), uint32(len(key))
	if !p.valid() || formatHash(p, salt, key) != h {
		return Params{}, nil, nil, ErrMalformedHash
	}
	return p, salt, key, nil
}

// Params returns the parameters h was made with: internal_error
// (ErrMalformedHash) when h does not parse.
func (h PasswordHash) Params() (Params, error) {
	p, _, _, err := h.parse()
	if err != nil {
		return Params{}, internal(err)
	}
	return p, nil
}

// Verify reports whether password is the one h was made from, comparing
// in constant time. A malformed h, a password that is not valid UTF-8 or
// one too long to be a password matches nothing.
func (h PasswordHash) Verify(password string) bool {
	p, salt, key, err := h.parse()
	if err != nil {
		return false
	}
	pw, err := normalizePassword(password)
	if err != nil {
		return false
	}
	got := argon2.IDKey([]byte(pw), salt, p.Time, p.Memory, p.Threads, p.KeyLength)
	return subtle.ConstantTimeCompare(got, key) == 1
}

// NeedsRehash reports whether h should be made again with p (the zero
// Params are DefaultParams): when it was made with other parameters, or
// does not parse. The caller rehashes right after a successful sign-in,
// the one time it holds the password.
func (h PasswordHash) NeedsRehash(p Params) bool {
	got, _, _, err := h.parse()
	return err != nil || got != p.orDefault()
}

// dummySalt and dummyKey are what VerifyDummy hashes with and compares to.
var (
	dummySalt = make([]byte, maxSaltLen)
	dummyKey  = make([]byte, maxKeyLen)
)

// VerifyDummy costs what verifying a hash made with p costs (the zero
// Params are DefaultParams), and matches nothing: the sign-in of an
// unknown email runs it, so that the time an answer takes does not tell
// whether the account exists. Authenticate calls it.
func VerifyDummy(password string, p Params) {
	p = p.orDefault()
	if !p.valid() {
		p = DefaultParams
	}
	pw, err := normalizePassword(password)
	if err != nil {
		return // a known account answers this input without hashing too
	}
	got := argon2.IDKey([]byte(pw), dummySalt[:p.SaltLength], p.Time, p.Memory, p.Threads, p.KeyLength)
	subtle.ConstantTimeCompare(got, dummyKey[:p.KeyLength])
}

// normalizePassword returns the NFKC form of password, after checking
// that it is valid UTF-8 and no longer than a password can be.
func normalizePassword(password string) (string, error) {
	if len(password) > maxPasswordBytes {
		return "", coded(errcode.ValidationError,
			fmt.Sprintf("The password must be at most %d characters.", MaxPasswordLength), ErrPasswordTooLong)
	}
	if !utf8.ValidString(password) {
		return "", coded(errcode.ValidationError, "The password has characters that are not allowed.", ErrPasswordCharacters)
	}
	return norm.NFKC.String(password), nil
}

// CheckPassword applies the password policy for the user with email
// (empty when none is known): valid UTF-8 with no control character; at
// least MinPasswordLength code points (of its NFKC form, a run of spaces
// counting once) and at most MaxPasswordLength; not the email address nor
// its local part, ignoring case. Any other printable character, spaces
// and emoji among them, is allowed, and there is no composition rule.
// validation_error (ErrPasswordCharacters, ErrPasswordTooShort,
// ErrPasswordTooLong or ErrPasswordIsEmail) otherwise.
func CheckPassword(password, email string) error {
	pw, err := normalizePassword(password)
	if err != nil {
		return err
	}
	n, collapsed := 0, 0
	prevSpace := false
	for _, r := range pw {
		if unicode.IsControl(r) {
			return coded(errcode.ValidationError, "The password may not contain control characters.", ErrPasswordCharacters)
		}
		n++
		if r == ' ' && prevSpace {
			continue
		}
		prevSpace = r == ' '
		collapsed++
	}
	if n > MaxPasswordLength {
		return coded(errcode.ValidationError,
			fmt.Sprintf("The password must be at most %d characters.", MaxPasswordLength), ErrPasswordTooLong)
	}
	if collapsed < MinPasswordLength {
		return coded(errcode.ValidationError,
			fmt.Sprintf("The password must be at least %d characters.", MinPasswordLength), ErrPasswordTooShort)
	}
	if e := strings.TrimSpace(email); e != "" {
		local, _, _ := strings.Cut(e, "@")
		if strings.EqualFold(pw, e) || strings.EqualFold(pw, local) {
			return coded(errcode.ValidationError, "The password may not be your email address.", ErrPasswordIsEmail)
		}
	}
	return nil
}

// SetPassword returns u with password hashed with p (the zero Params are
// DefaultParams), after CheckPassword against u's email. The store ends
// u's other sessions when the user changes a password they knew, and all
// of them after a reset.
func (u User) SetPassword(password string, p Params, random io.Reader) (User, error) {
	if err := CheckPassword(password, u.Email); err != nil {
		return u, err
	}
	h, err := HashPassword(password, p, random)
	if err != nil {
		return u, err
	}
	u.PasswordHash = h
	return u, nil
}

// ChangePassword is SetPassword after verifying the current password:
// unauthorized (ErrWrongPassword) when it is wrong. Callers count a wrong
// current password as a failed sign-in on the account's Throttle.
func (u User) ChangePassword(current, next string, p Params, random io.Reader) (User, error) {
	if !u.PasswordHash.Verify(current) {
		return u, WrongPassword()
	}
	return u.SetPassword(next, p, random)
}

// Authenticate checks a sign-in's password for u, the user with the
// email given, or nil when there is none. An unknown email, a wrong
// password and a disabled user get the same error, unauthorized with the
// message "The email or password is incorrect." (ErrInvalidCredentials),
// and take the time of one verification each: an unknown email runs
// VerifyDummy with p, the parameters of new hashes (the zero Params are
// DefaultParams), and a disabled user's password is verified before it is
// refused. The caller checks the throttles first (Admit) and records the
// outcome after (Throttle.Fail, Throttle.Succeed); on success it rehashes
// the password when u.PasswordHash.NeedsRehash(p). It is slow on purpose
// (one argon2id run): a store calls it, and HashPassword, outside its
// transactions, between a read of u and the throttles and the write of
// the outcome, which checks that neither moved meanwhile.
func Authenticate(u *User, password string, p Params) error {
	if u == nil {
		VerifyDummy(password, p)
		return invalidCredentials()
	}
	if _, _, _, err := u.PasswordHash.parse(); err != nil {
		VerifyDummy(password, p)
		return invalidCredentials()
	}
	if !u.PasswordHash.Verify(password) || u.Disabled() {
		return invalidCredentials()
	}
	return nil
}
