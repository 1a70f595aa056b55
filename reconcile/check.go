package reconcile

import (
	"strings"

	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/internal/textrule"
	"github.com/tambalapay/tambala/payouts"
)

// MaxFile bounds a settlement file, in bytes.
const MaxFile = 4 << 20

// MaxBulk bounds the payouts one bulk resolution names.
const MaxBulk = 500

// CheckRail refuses a rail the engine does not pay on (validation_error).
func CheckRail(rail payouts.Rail) error {
	switch rail {
	case payouts.Bank, payouts.Momo, payouts.Wallet:
		return nil
	}
	return errcode.Newf(errcode.ValidationError, "rail must be bank, momo or wallet.")
}

// CheckFile checks a settlement file to import: its rail, its name
// (returned trimmed, 1 to 200 bytes of allowed characters) and the size
// of its content, at most MaxFile bytes (validation_error otherwise, in
// that order).
func CheckFile(rail payouts.Rail, name string, size int) (string, error) {
	if err := CheckRail(rail); err != nil {
		return name, err
	}
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 200 {
		return name, errcode.Newf(errcode.ValidationError, "name must be 1 to 200 characters.")
	}
	if err := textrule.CheckChars("name", name); err != nil {
		return name, err
	}
	if size > MaxFile {
		return name, errcode.Newf(errcode.ValidationError, "the file must be at most %d bytes.", MaxFile)
	}
	return name, nil
}

// CheckBulk checks a bulk resolution of n payouts (1 to MaxBulk) and its
// reason, returned trimmed: at most 250 bytes, so that with the file's
// name and line it stays within a resolution's 500 (validation_error).
func CheckBulk(n int, reason string) (string, error) {
	if n == 0 || n > MaxBulk {
		return reason, errcode.Newf(errcode.ValidationError, "name 1 to %d payouts to resolve.", MaxBulk)
	}
	reason = strings.TrimSpace(reason)
	if len(reason) > 250 {
		return reason, errcode.Newf(errcode.ValidationError, "reason must be at most 250 characters.")
	}
	return reason, nil
}

// CheckExplanation checks why a line is explained, returned trimmed: 1 to
// 500 bytes of allowed characters (validation_error).
func CheckExplanation(reason string) (string, error) {
	reason = strings.TrimSpace(reason)
	if reason == "" || len(reason) > 500 {
		return reason, errcode.Newf(errcode.ValidationError, "reason must be 1 to 500 characters.")
	}
	return reason, textrule.CheckChars("reason", reason)
}

// CheckMapping checks a rail's column mapping to set: m.Check, then every
// column name of allowed characters (validation_error).
func CheckMapping(m Mapping) error {
	if err := m.Check(); err != nil {
		return errcode.Newf(errcode.ValidationError, "%s.", err)
	}
	for _, n := range []string{m.Reference, m.Amount, m.Currency, m.Status, m.Time, m.FileNumber} {
		if err := textrule.CheckChars("column name", n); err != nil {
			return err
		}
	}
	return nil
}
