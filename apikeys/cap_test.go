package apikeys_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/apikeys"
	"github.com/tambalapay/tambala/errcode"
)

type key bool

func (k key) Active() bool { return bool(k) }

func TestKeyCap(t *testing.T) {
	keys := []key{true, false, true}
	assert.Equal(t, 2, apikeys.CountActive(keys))
	assert.Equal(t, 0, apikeys.CountActive([]key(nil)))

	assert.False(t, apikeys.AtCap(1, 2))
	assert.True(t, apikeys.AtCap(2, 2))
	require.NoError(t, apikeys.CheckCap(1, 2))

	err := apikeys.CheckCap(2, 2)
	assert.Equal(t, errcode.Conflict, errcode.Of(err))
	assert.Equal(t, "the organization already has 2 active keys; revoke one first", errcode.Message(err))
}
