package tambala

import (
	"errors"

	"github.com/tambalapay/tambala/errcode"
)

// ErrNoDepositIssuer is the cause of the service_unavailable that
// Client.DepositAddresses and Operator.RotateDepositAddress answer on an
// engine without Options.DepositIssuer (errors.Is finds it).
var ErrNoDepositIssuer = errors.New("tambala: no deposit address issuer configured (Options.DepositIssuer)")

// errNoDepositIssuerCoded answers a deposit address read on an engine
// without an issuer. Its cause, ErrNoDepositIssuer, names the option to
// set; the public message stays the API's.
var errNoDepositIssuerCoded = &errcode.Error{Code: errcode.ServiceUnavailable, Message: "Deposit addresses are not available.", Err: ErrNoDepositIssuer}
