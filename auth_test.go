package tambala_test

import (
	"bytes"
	"context"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/adapters/pebblestore"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
	"github.com/tambalapay/tambala/store"
)

var anyAddr = netip.MustParseAddr("192.0.2.1")

func TestAuthenticate_Keys(t *testing.T) {
	ctx := context.Background()
	e, _ := testEngine(t, nil)
	p, key := orgWithKey(t, e, "A", 0)
	assert.Equal(t, key[:16], p.Key.Prefix)
	assert.Equal(t, "A", p.Org.Name)
	assert.True(t, strings.HasPrefix(key, "tmb_live_"))
	assert.Len(t, key, 52)

	for _, bad := range []string{"", "tmb_live_short", key + "x", key[:51], "tmb_test_" + key[9:], strings.ToUpper(key), " " + key} {
		_, err := authFrom(ctx, e, bad, anyAddr)
		assert.Equal(t, errcode.Unauthorized, errcode.Of(err), "key %q", bad)
	}
	// A well-formed key that was never issued.
	other, _ := testEngine(t, nil)
	_, foreign := orgWithKey(t, other, "elsewhere", 0)
	_, err := authFrom(ctx, e, foreign, anyAddr)
	assert.Equal(t, errcode.Unauthorized, errcode.Of(err))

	// Revocation is immediate, by prefix or id, and idempotent.
	k, err := e.Operator().RevokeKey(ctx, p.Org.ID, key[:16])
	require.NoError(t, err)
	assert.NotNil(t, k.RevokedAt)
	_, err = authFrom(ctx, e, key, anyAddr)
	assert.Equal(t, errcode.Unauthorized, errcode.Of(err))
	_, err = e.Operator().RevokeKey(ctx, p.Org.ID, k.ID)
	assert.NoError(t, err)
	_, err = e.Operator().RevokeKey(ctx, p.Org.ID, "nope")
	assert.Equal(t, errcode.NotFound, errcode.Of(err))
	// Another organization cannot revoke it.
	q, _ := orgWithKey(t, e, "B", 0)
	_, err = e.Operator().RevokeKey(ctx, q.Org.ID, k.ID)
	assert.Equal(t, errcode.NotFound, errcode.Of(err))
}

func TestAuthenticate_KeysNeverStored(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	e, err := tambala.New(st, nil)
	require.NoError(t, err)
	p, key := orgWithKey(t, e, "A", 0)
	keys, err := e.Operator().Keys(ctx, p.Org.ID)
	require.NoError(t, err)
	require.Len(t, keys, 1)
	assert.Equal(t, key[:16], keys[0].Prefix)
	// Nothing in the store holds the key or its secret part.
	found, sawPrefix := false, false
	require.NoError(t, st.View(ctx, func(tx store.Tx) error {
		for _, b := range []string{"orgs", "keys", "keys.by_hash", "keys.by_org", "settings", "idempotency"} {
			err := tx.Scan([]byte(b), store.ScanOptions{}, func(k, v []byte) (bool, error) {
				if bytes.Contains(k, []byte(key[16:])) || bytes.Contains(v, []byte(key[16:])) {
					found = true
				}
				sawPrefix = sawPrefix || bytes.Contains(v, []byte(key[:16]))
				return true, nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	}))
	assert.False(t, found, "the key's secret part is in the store")
	assert.True(t, sawPrefix, "the scan saw no key record: are the bucket names right?")
}

func TestAuthenticate_Environment(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	prod, err := tambala.New(st, &tambala.Options{Environment: tambala.Production})
	require.NoError(t, err)
	sandbox, err := tambala.New(st, &tambala.Options{Environment: tambala.Sandbox})
	require.NoError(t, err)
	_, key := orgWithKey(t, prod, "P", 0)
	_, err = authFrom(ctx, sandbox, key, anyAddr)
	assert.Equal(t, errcode.Unauthorized, errcode.Of(err))
	_, skey := orgWithKey(t, sandbox, "S", 0)
	_, err = authFrom(ctx, prod, skey, anyAddr)
	assert.Equal(t, errcode.Unauthorized, errcode.Of(err))
}

func TestAuthenticate_SuspendedAndAllowlist(t *testing.T) {
	ctx := context.Background()
	e, _ := testEngine(t, nil)
	p, key := orgWithKey(t, e, "A", 0)

	_, err := e.Operator().SetOrganizationStatus(ctx, p.Org.ID, tambala.OrgSuspended)
	require.NoError(t, err)
	_, err = authFrom(ctx, e, key, anyAddr)
	assert.Equal(t, errcode.Forbidden, errcode.Of(err))
	_, err = e.Operator().SetOrganizationStatus(ctx, p.Org.ID, tambala.OrgActive)
	require.NoError(t, err)

	_, err = e.Operator().SetAllowlist(ctx, p.Org.ID, mustAddrs(t, "203.0.113.7", "2001:db8::1"))
	require.NoError(t, err)
	for addr, ok := range map[string]bool{
		"203.0.113.7": true, "::ffff:203.0.113.7": true, "2001:db8::1": true, "2001:0db8::0001": true,
		"203.0.113.8": false, "2001:db8::2": false, "::ffff:2001:db8::1": false, "::1": false, "0.0.0.0": false,
	} {
		a, perr := netip.ParseAddr(addr)
		if perr != nil {
			continue
		}
		_, err := authFrom(ctx, e, key, a)
		if ok {
			assert.NoError(t, err, addr)
		} else {
			assert.Equal(t, errcode.Forbidden, errcode.Of(err), addr)
		}
	}
	_, err = authFrom(ctx, e, key, netip.Addr{})
	assert.Equal(t, errcode.Forbidden, errcode.Of(err), "an unknown address never passes a non-empty list")
	// A bad key is 401 before the allowlist is looked at.
	_, err = authFrom(ctx, e, "tmb_live_short", netip.MustParseAddr("198.51.100.1"))
	assert.Equal(t, errcode.Unauthorized, errcode.Of(err))
}

func TestKeys_ActiveLimit(t *testing.T) {
	ctx := context.Background()
	e, _ := testEngine(t, &tambala.Options{Limits: tambala.Limits{MaxActiveKeys: 2}})
	p, first := orgWithKey(t, e, "A", 0)
	_, _, err := e.Operator().CreateKey(ctx, p.Org.ID)
	require.NoError(t, err)
	_, _, err = e.Operator().CreateKey(ctx, p.Org.ID)
	assert.Equal(t, errcode.Conflict, errcode.Of(err))
	_, err = e.Operator().RevokeKey(ctx, p.Org.ID, first[:16])
	require.NoError(t, err)
	_, _, err = e.Operator().CreateKey(ctx, p.Org.ID)
	assert.NoError(t, err)
	_, _, err = e.Operator().CreateKey(ctx, "no-such-org")
	assert.Equal(t, errcode.NotFound, errcode.Of(err))
	_, err = e.Operator().Keys(ctx, "no-such-org")
	assert.Equal(t, errcode.NotFound, errcode.Of(err))
}

// Authenticate reuses decoded keys and organizations while their stored
// bytes are unchanged: every change is still seen at once, and a caller
// changing the principal it got changes nothing for the next request.
func TestAuthenticate_CachedRecordsStayFresh(t *testing.T) {
	ctx := context.Background()
	e, _ := testEngine(t, nil)
	p, key := orgWithKey(t, e, "A", 0)
	_, err := e.Operator().SetAllowlist(ctx, p.Org.ID, mustAddrs(t, "203.0.113.7"))
	require.NoError(t, err)
	allowed := netip.MustParseAddr("203.0.113.7")

	first, err := authFrom(ctx, e, key, allowed)
	require.NoError(t, err)
	first.Org.Allowlist[0] = netip.MustParseAddr("198.51.100.1")
	first.Org.Name = "changed by a caller"
	again, err := authFrom(ctx, e, key, allowed)
	require.NoError(t, err, "a caller's change to its principal is its own")
	assert.Equal(t, "A", again.Org.Name)

	for range 3 { // suspend, reactivate, suspend: each seen on the next request
		_, err = e.Operator().SetOrganizationStatus(ctx, p.Org.ID, tambala.OrgSuspended)
		require.NoError(t, err)
		_, err = authFrom(ctx, e, key, allowed)
		assert.Equal(t, errcode.Forbidden, errcode.Of(err))
		_, err = e.Operator().SetOrganizationStatus(ctx, p.Org.ID, tambala.OrgActive)
		require.NoError(t, err)
		_, err = authFrom(ctx, e, key, allowed)
		assert.NoError(t, err)
	}
	_, err = e.Operator().SetAllowlist(ctx, p.Org.ID, nil)
	require.NoError(t, err)
	_, err = authFrom(ctx, e, key, netip.MustParseAddr("198.51.100.9"))
	assert.NoError(t, err, "the emptied allowlist is seen at once")
}

// authFrom is what a transport does with a key presented from addr:
// Authenticate, then the organization's allowlist.
func authFrom(ctx context.Context, e *tambala.Engine, key string, addr netip.Addr) (tambala.Principal, error) {
	p, err := e.Authenticate(ctx, key)
	if err != nil {
		return p, err
	}
	if !p.Org.Allows(addr) {
		return tambala.Principal{}, tambala.ErrNotAllowlisted
	}
	return p, nil
}

// On pebble, Views answer an API key's records from what earlier Views
// read, while nothing has written to their buckets since
// (adapters/pebblestore, viewMemory). Between each change and the next
// request here, enough other commits pass for those buckets to be
// remembered: a revoked key, a suspension and a new key are each seen on
// the next request.
func TestAuthenticate_PebbleSeesEveryChangeAfterQuietCommits(t *testing.T) {
	ctx := context.Background()
	s, err := pebblestore.Open(filepath.Join(t.TempDir(), "pebble"), &pebblestore.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	e, err := tambala.New(s, &tambala.Options{Clock: newClock().Now})
	require.NoError(t, err)
	p, key := orgWithKey(t, e, "A", 0)
	other, _ := orgWithKey(t, e, "B", 0)
	quiet := func() { // commits that write none of the records a key's authentication reads
		t.Helper()
		for range 40 {
			require.NoError(t, e.Operator().Fund(ctx, other.Org.ID, money.FromInt(money.MWK, 1), "filler"))
		}
		for range 3 { // read, and so remembered
			_, _ = e.Authenticate(ctx, key)
		}
	}

	quiet()
	_, err = e.Authenticate(ctx, key)
	require.NoError(t, err)
	for range 2 {
		_, err = e.Operator().SetOrganizationStatus(ctx, p.Org.ID, tambala.OrgSuspended)
		require.NoError(t, err)
		_, err = e.Authenticate(ctx, key)
		assert.Equal(t, errcode.Forbidden, errcode.Of(err), "suspended")
		quiet()
		_, err = e.Operator().SetOrganizationStatus(ctx, p.Org.ID, tambala.OrgActive)
		require.NoError(t, err)
		_, err = e.Authenticate(ctx, key)
		require.NoError(t, err, "active again")
		quiet()
	}
	second, _, err := e.Operator().CreateKey(ctx, p.Org.ID)
	require.NoError(t, err)
	_, err = e.Authenticate(ctx, second)
	require.NoError(t, err, "a new key")
	quiet()
	_, err = e.Operator().RevokeKey(ctx, p.Org.ID, key[:16])
	require.NoError(t, err)
	_, err = e.Authenticate(ctx, key)
	assert.Equal(t, errcode.Unauthorized, errcode.Of(err), "revoked")
	quiet()
	_, err = e.Authenticate(ctx, key)
	assert.Equal(t, errcode.Unauthorized, errcode.Of(err), "still revoked")
	_, err = e.Authenticate(ctx, second)
	require.NoError(t, err)
}
