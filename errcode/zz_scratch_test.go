package errcode_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tambalapay/tambala/errcode"
)

type coderOnly struct{ c errcode.Code; err error }
func (e coderOnly) Error() string { return "x" }
func (e coderOnly) ErrorCode() errcode.Code { return e.c }
func (e coderOnly) Unwrap() error { return e.err }

func TestZZ(t *testing.T) {
	err := fmt.Errorf("ctx: %w", coderOnly{errcode.LimitExceeded, errcode.Newf(errcode.NotFound, "no such order 123")})
	fmt.Println(errcode.Of(err), "|", errcode.Message(err))
	require.True(t, true)
}
