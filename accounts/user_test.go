package accounts_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/accounts"
	"github.com/tambalapay/tambala/errcode"
)

func TestNormalizeEmail(t *testing.T) {
	long := strings.Repeat("a", 64) + "@" + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 58) + ".mw"
	require.Len(t, long, 254)
	good := []struct{ in, want string }{
		{"alice@example.com", "alice@example.com"},
		{"  Alice@Example.COM\t\n", "alice@example.com"},
		{"a.b+tag@mail.example.co.mw", "a.b+tag@mail.example.co.mw"},
		{"o'brien@example.ie", "o'brien@example.ie"},
		{"x@a-b.example", "x@a-b.example"},
		{"chikondi@bücher.example", "chikondi@bücher.example"},
		{"ŁUKASZ@example.pl", "łukasz@example.pl"},
		{long, long},
	}
	for _, tt := range good {
		got, err := accounts.NormalizeEmail(tt.in)
		if assert.NoError(t, err, tt.in) {
			assert.Equal(t, tt.want, got, tt.in)
		}
	}
	bad := []struct{ name, in string }{
		{"empty", ""},
		{"blank", "   "},
		{"no at", "alice.example.com"},
		{"two ats", "alice@bob@example.com"},
		{"empty local", "@example.com"},
		{"empty domain", "alice@"},
		{"single-label domain", "alice@localhost"},
		{"empty label", "alice@example..com"},
		{"leading dot domain", "alice@.example.com"},
		{"trailing dot domain", "alice@example.com."},
		{"hyphen-led label", "alice@-example.com"},
		{"hyphen-ended label", "alice@example-.com"},
		{"numeric tld", "alice@10.0.0.1"},
		{"address literal", "alice@[10.0.0.1]"},
		{"underscore in domain", "alice@ex_ample.com"},
		{"leading dot local", ".alice@example.com"},
		{"trailing dot local", "alice.@example.com"},
		{"double dot local", "al..ice@example.com"},
		{"quoted local", `"alice"@example.com`},
		{"angle brackets", "Alice <alice@example.com>"},
		{"inner space", "ali ce@example.com"},
		{"inner tab", "ali\tce@example.com"},
		{"NUL", "alice\x00@example.com"},
		{"DEL", "alice\x7f@example.com"},
		{"C1 control", "alice\u0085x@example.com"},
		{"zero-width space", "ali\u200bce@example.com"},
		{"bidi override", "alice\u202e@example.com"},
		{"invalid UTF-8", "ali\xffce@example.com"},
		{"local part of 65 bytes", strings.Repeat("a", 65) + "@example.com"},
		{"label of 64 bytes", "a@" + strings.Repeat("b", 64) + ".com"},
		{"255 bytes", strings.Repeat("a", 64) + "@" + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 59) + ".mw"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := accounts.NormalizeEmail(tt.in)
			assertCoded(t, err, errcode.ValidationError, accounts.ErrInvalidEmail, "The email address is not valid.")
		})
	}
}

func TestCheckRole(t *testing.T) {
	tests := []struct {
		role accounts.Role
		org  string
		ok   bool
	}{
		{accounts.RoleOrgAdmin, "org_1", true},
		{accounts.RoleOrgAdmin, "", false},
		{"", "org_1", false},
		{"", "", false},
		{"operator_admin", "", false}, // staff roles come later
		{"ORG_ADMIN", "org_1", false},
	}
	for _, tt := range tests {
		err := accounts.CheckRole(tt.role, tt.org)
		if tt.ok {
			assert.NoError(t, err, "%q %q", tt.role, tt.org)
		} else {
			assertCoded(t, err, errcode.ValidationError, accounts.ErrInvalidRole, "")
		}
	}
	assert.True(t, accounts.RoleOrgAdmin.Valid())
	assert.True(t, accounts.RoleOrgAdmin.OrgScoped())
	assert.False(t, accounts.Role("x").Valid())
}

func TestNewUser(t *testing.T) {
	u, err := accounts.NewUser(accounts.UserRequest{ID: "usr_1", Email: " Alice@Example.com ", Role: accounts.RoleOrgAdmin, Org: "org_1"}, t0)
	require.NoError(t, err)
	assert.Equal(t, accounts.User{ID: "usr_1", Email: "alice@example.com", Role: accounts.RoleOrgAdmin, Org: "org_1", CreatedAt: t0}, u)
	assert.Equal(t, accounts.StatusActive, u.Status())

	for name, tt := range map[string]struct {
		r     accounts.UserRequest
		cause error
	}{
		"no id":     {accounts.UserRequest{Email: "a@example.com", Role: accounts.RoleOrgAdmin, Org: "o"}, accounts.ErrInvalidID},
		"bad email": {accounts.UserRequest{ID: "u", Email: "a@b", Role: accounts.RoleOrgAdmin, Org: "o"}, accounts.ErrInvalidEmail},
		"no org":    {accounts.UserRequest{ID: "u", Email: "a@example.com", Role: accounts.RoleOrgAdmin}, accounts.ErrInvalidRole},
		"bad role":  {accounts.UserRequest{ID: "u", Email: "a@example.com", Role: "root", Org: "o"}, accounts.ErrInvalidRole},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := accounts.NewUser(tt.r, t0)
			assertCoded(t, err, errcode.ValidationError, tt.cause, "")
		})
	}
}

func TestDisableEnable(t *testing.T) {
	u := testUser(t, "correct horse battery staple")
	d := u.Disable(t0.Add(time.Hour))
	assert.Equal(t, accounts.StatusDisabled, d.Status())
	assert.True(t, d.Disabled())
	assert.Equal(t, t0.Add(time.Hour), d.DisabledAt)
	assert.Equal(t, t0.Add(time.Hour), d.Disable(t0.Add(2*time.Hour)).DisabledAt, "the first time is kept")
	e := d.Enable()
	assert.Equal(t, accounts.StatusActive, e.Status())
	assert.Equal(t, u, e)
}
