// Package errcode holds the stable error codes of the API (those it
// documents and those docs/decisions.md adds) in one table, each with a
// fixed default message, and the typed error that carries a code through
// the engine. The status each code is answered with over HTTP is the
// binding's (adapters/httpapi.Status).
//
// Every coded error the engine and the domain packages return is an *Error
// (domain details such as *ledger.InsufficientFundsError or
// *money.ParseError ride along as its cause), so errors.Is(err, New(c)),
// errors.As(err, &*Error) and Of(err) always agree. The HTTP binding renders
// them as {"error":{"code","message"}} with its status for the code. Codes are
// never renamed or removed, only added.
//
// Each code X has its sentinel ErrX (ErrNotFound, ErrInsufficientFunds,
// ...), so a host branches with errors.Is(err, errcode.ErrNotFound) rather
// than building New(NotFound) for each check.
package errcode
