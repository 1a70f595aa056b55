package apikeys_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/apikeys"
)

func TestFormatParse(t *testing.T) {
	for _, fill := range []byte{0x00, 0x01, 0x7f, 0xff} {
		k, err := apikeys.Format(bytes.Repeat([]byte{fill}, 32))
		require.NoError(t, err)
		assert.NoError(t, apikeys.Parse(k), k)
		assert.Len(t, k, len(apikeys.LivePrefix)+43)
		assert.Equal(t, k[:16], apikeys.Display(k))
	}
	a, _ := apikeys.Format(bytes.Repeat([]byte{1}, 32))
	b, _ := apikeys.Format(append(bytes.Repeat([]byte{1}, 31), 2))
	assert.NotEqual(t, a, b)
	_, err := apikeys.Format(make([]byte, 31))
	assert.Error(t, err)
	for _, bad := range []string{"", "tmb_live_", "tmb_test_" + a[9:], a + "x", a[:len(a)-1], a[:len(a)-1] + "_", "Bearer " + a} {
		assert.ErrorIs(t, apikeys.Parse(bad), apikeys.ErrMalformed, bad)
	}
}

func TestHashEqual(t *testing.T) {
	h1, h2 := apikeys.Hash("a"), apikeys.Hash("b")
	assert.True(t, apikeys.Equal(h1[:], h1[:]))
	assert.False(t, apikeys.Equal(h1[:], h2[:]))
	assert.False(t, apikeys.Equal(h1[:], h1[:31]))
}

func ExampleFormat() {
	k, _ := apikeys.Format(make([]byte, 32))
	fmt.Println(apikeys.Display(k), len(k))
	// Output: tmb_live_0000000 52
}
