package networks_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/networks"
)

func TestAddresses(t *testing.T) {
	tab := networks.Default()
	tron, err := tab.Lookup("tron")
	assert.NoError(t, err)
	eth, err := tab.Lookup("ethereum")
	assert.NoError(t, err)
	cases := []struct {
		n    networks.Network
		addr string
		ok   bool
	}{
		{tron, "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", true},  // USDT's contract address on TRON
		{tron, "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u", false}, // checksum
		{tron, "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6", false},  // length
		{tron, "AR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", false}, // prefix
		{tron, "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj0t", false}, // 0 is not base58
		{tron, "0xdAC17F958D2ee523a2206206994597C13D831ec7", false},
		{eth, "0xdAC17F958D2ee523a2206206994597C13D831ec7", true},  // EIP-55
		{eth, "0xdac17f958d2ee523a2206206994597c13d831ec7", true},  // all lower
		{eth, "0xDAC17F958D2EE523A2206206994597C13D831EC7", true},  // all upper
		{eth, "0xdAC17F958D2ee523a2206206994597C13D831eC7", false}, // bad checksum
		{eth, "0xdac17f958d2ee523a2206206994597c13d831ec", false},  // 39 digits
		{eth, "dac17f958d2ee523a2206206994597c13d831ec7", false},   // no 0x
		{eth, "0xgac17f958d2ee523a2206206994597c13d831ec7", false}, // not hex
		{eth, "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t", false},
		{eth, "", false},
	}
	for _, c := range cases {
		err := c.n.CheckAddress("USDT", c.addr)
		if c.ok {
			assert.NoError(t, err, "%s %s", c.n.ID, c.addr)
			continue
		}
		assert.Equal(t, errcode.InvalidWalletAddress, errcode.Of(err), "%s %s", c.n.ID, c.addr)
		assert.Contains(t, errcode.Message(err), c.n.ID, "the message names the network")
	}
	assert.Equal(t, errcode.InvalidWalletAddress, errcode.Of(tron.CheckAddress("USDC", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t")), "asset not on the network")
	for _, id := range []string{"bitcoin", "TRON", "", "tron-mainnet", "a very long network id that is over thirty two"} {
		_, err := tab.Lookup(id)
		assert.Equal(t, errcode.UnsupportedNetwork, errcode.Of(err), id)
	}
	assert.NoError(t, tab.Validate())
	assert.Len(t, tab.Sorted(), 2)
	assert.Equal(t, "ethereum", tab.Sorted()[0].ID)
}
