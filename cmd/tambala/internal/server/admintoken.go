package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tambalapay/tambala/store"
)

// The admin token is one for every instance over a store: the store keeps
// its SHA-256 (never the token), and each instance checks requests against
// that. See docs/decisions.md, "Instances over one store".
var (
	bucketServer      = []byte("server")
	keyAdminTokenHash = []byte("admin_token.sha256")
)

// minAdminToken is the shortest admin token accepted (httpapi.NewAdmin's rule).
const minAdminToken = 32

// adminCredential is the admin token an instance checks requests against.
type adminCredential struct {
	hash [32]byte
	// token is the token itself when this instance knows it (given by
	// -admin-token, read from DATA/admin-token, or made now), else "".
	token string
	// fresh says the token was made by this start (and written to
	// DATA/admin-token).
	fresh bool
}

// tokenFile is where the data folder keeps the admin token.
func tokenFile(data string) string { return filepath.Join(data, "admin-token") }

// errTokenDiffers refuses an instance whose token is not the store's.
var errTokenDiffers = errors.New("the admin token differs from the one this store's instances use")

// resolveAdminToken settles the admin token of an instance over st:
//   - given (-admin-token, TAMBALA_ADMIN_TOKEN), else DATA/admin-token,
//     is this instance's token; the store's hash, when it has one, must
//     be its hash, and is written from it when the store has none (a
//     store made before the hash was kept, or supplied tokens);
//   - with neither, the store's hash is used as it is (the instance that
//     made the token printed it, and kept it in its data folder);
//   - with none anywhere, a token is made: its hash is put in the store in
//     one transaction (of servers starting together on an empty store,
//     one wins and the others take its hash), and the token is kept in
//     DATA/admin-token, readable only by its owner, and printed once.
func resolveAdminToken(ctx context.Context, st store.Store, data, given string) (adminCredential, error) {
	var c adminCredential
	source := "-admin-token (TAMBALA_ADMIN_TOKEN)"
	token := given
	if token == "" {
		b, err := os.ReadFile(tokenFile(data))
		switch {
		case err == nil:
			token, source = strings.TrimSpace(string(b)), tokenFile(data)
		case !errors.Is(err, os.ErrNotExist):
			return c, err
		}
	}
	if token != "" && len(token) < minAdminToken {
		return c, fmt.Errorf("the admin token of %s is shorter than %d characters", source, minAdminToken)
	}
	// A token to offer when none is known: written beside the data folder's
	// token file first, so that a token whose hash is committed is never
	// lost; renamed into place only if this start's hash is the one kept.
	var made, tmp string
	if token == "" {
		raw := make([]byte, 32)
		if _, err := rand.Read(raw); err != nil {
			return c, err
		}
		made = "adm_" + base64.RawURLEncoding.EncodeToString(raw)
		f, err := os.CreateTemp(data, ".admin-token.tmp-*")
		if err != nil {
			return c, err
		}
		tmp = f.Name()
		defer os.Remove(tmp) // after the rename, nothing is there
		_, err = f.WriteString(made + "\n")
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return c, err
		}
	}
	var kept []byte
	err := st.Update(ctx, func(tx store.Tx) error {
		v, err := tx.Get(bucketServer, keyAdminTokenHash)
		switch {
		case err == nil:
			kept = v
			return nil
		case !errors.Is(err, store.ErrNotFound):
			return err
		}
		offer := token
		if offer == "" {
			offer = made
		}
		h := sha256.Sum256([]byte(offer))
		kept = h[:]
		return tx.Put(bucketServer, keyAdminTokenHash, h[:])
	})
	if err != nil {
		return c, fmt.Errorf("settling the admin token in the store: %w", err)
	}
	if len(kept) != len(c.hash) {
		return c, fmt.Errorf("the store's admin token hash has %d bytes, not %d", len(kept), len(c.hash))
	}
	copy(c.hash[:], kept)
	switch {
	case token != "":
		if h := sha256.Sum256([]byte(token)); !bytes.Equal(h[:], kept) {
			return c, fmt.Errorf("%w: the token of %s is not the one the store's other instances check (give every instance the same TAMBALA_ADMIN_TOKEN, or none: an instance without one checks the store's)", errTokenDiffers, source)
		}
		c.token = token
	case made != "":
		if h := sha256.Sum256([]byte(made)); bytes.Equal(h[:], kept) {
			if err := os.Rename(tmp, tokenFile(data)); err != nil {
				return c, fmt.Errorf("keeping the admin token in %s: %w", tokenFile(data), err)
			}
			c.token, c.fresh = made, true
		}
		// Else another instance made the store's token first: it printed it.
	}
	return c, nil
}
