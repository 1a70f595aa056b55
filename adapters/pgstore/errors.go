package pgstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/puddle/v2"

	"github.com/tambalapay/tambala/store"
)

// SQLSTATE codes the store acts on.
const (
	codeSerializationFailure = "40001"
	codeDeadlockDetected     = "40P01"
	// An index row too large: a bucket and key that do not fit a btree
	// entry even compressed.
	codeProgramLimitExceeded = "54000"
)

// ErrCommitUnknown is wrapped by the error of an Update whose COMMIT was
// sent but whose answer never came (the connection broke): the update may
// or may not have committed.
var ErrCommitUnknown = errors.New("pgstore: commit outcome unknown")

type commitUnknownError struct{ err error }

func (e *commitUnknownError) Error() string { return ErrCommitUnknown.Error() + ": " + e.err.Error() }

func (e *commitUnknownError) Unwrap() []error { return []error{ErrCommitUnknown, e.err} }

func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// isRetryable reports a transaction that failed to serialize or was
// chosen as a deadlock victim: running it again may succeed.
func isRetryable(err error) bool {
	switch sqlState(err) {
	case codeSerializationFailure, codeDeadlockDetected:
		return true
	}
	return false
}

// isServerError reports an error the server sent (the statement ran and
// failed), as opposed to a broken connection.
func isServerError(err error) bool { return sqlState(err) != "" }

// failure translates an error of the database into what Update or View
// returns: the caller's context error when it ended, the port's sentinels
// where one applies, otherwise the error wrapped (errors.As finds the
// *pgconn.PgError).
func (s *Store) failure(ctx context.Context, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, store.ErrNotFound), errors.Is(err, store.ErrClosed),
		errors.Is(err, store.ErrInvalidKey), errors.Is(err, store.ErrValueTooLarge),
		errors.Is(err, store.ErrConflict), errors.Is(err, store.ErrReadOnly):
		return err
	case ctx.Err() != nil && !errors.Is(err, ErrCommitUnknown):
		return ctx.Err()
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.Is(err, puddle.ErrClosedPool):
		return store.ErrClosed
	case isRetryable(err):
		return fmt.Errorf("%w: %w", store.ErrConflict, err)
	case sqlState(err) == codeProgramLimitExceeded:
		return fmt.Errorf("%w: %w", store.ErrInvalidKey, err)
	}
	return fmt.Errorf("pgstore: %w", err)
}
