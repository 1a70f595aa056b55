package reconcile_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/payouts"
	"github.com/tambalapay/tambala/reconcile"
)

func TestChecks(t *testing.T) {
	name, err := reconcile.CheckFile(payouts.Bank, "  nbm.csv ", 10)
	require.NoError(t, err)
	assert.Equal(t, "nbm.csv", name)
	_, err = reconcile.CheckFile("card", "nbm.csv", 10)
	assert.Equal(t, errcode.ValidationError, errcode.Of(err))
	_, err = reconcile.CheckFile(payouts.Momo, " ", 10)
	assert.ErrorContains(t, err, "name must be 1 to 200 characters.")
	_, err = reconcile.CheckFile(payouts.Wallet, "w.csv", reconcile.MaxFile+1)
	assert.ErrorContains(t, err, "the file must be at most 4194304 bytes.")

	reason, err := reconcile.CheckBulk(1, " ok ")
	require.NoError(t, err)
	assert.Equal(t, "ok", reason)
	_, err = reconcile.CheckBulk(0, "")
	assert.ErrorContains(t, err, "name 1 to 500 payouts to resolve.")
	_, err = reconcile.CheckBulk(reconcile.MaxBulk, strings.Repeat("r", 251))
	assert.ErrorContains(t, err, "reason must be at most 250 characters.")

	reason, err = reconcile.CheckExplanation(" paid by hand ")
	require.NoError(t, err)
	assert.Equal(t, "paid by hand", reason)
	_, err = reconcile.CheckExplanation("")
	assert.Equal(t, errcode.ValidationError, errcode.Of(err))

	require.NoError(t, reconcile.CheckMapping(reconcile.DefaultMapping()))
	assert.Equal(t, errcode.ValidationError, errcode.Of(reconcile.CheckMapping(reconcile.Mapping{})))
}
