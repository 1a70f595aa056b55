package sandbox

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/store"
)

// ConversionsBucket is the store bucket that holds the converter's
// conversions, one record per reference.
const ConversionsBucket = "sandbox.conversions"

var convBucket = []byte(ConversionsBucket)

// ConverterOptions configure a Converter; nil takes the defaults.
type ConverterOptions struct {
	Clock func() time.Time // default time.Now
	Delay time.Duration    // time to an outcome; default 2s
	// Store keeps the conversions, in ConversionsBucket, so that a
	// Converter over the same store after a restart answers for the
	// conversions it accepted before. Nil keeps them in memory only.
	Store store.Store
}

// Converter is the simulated conversion provider: a conversion completes
// Delay after it was first accepted, unless its reference was scripted to
// fail. Convert is idempotent by reference.
type Converter struct {
	now   func() time.Time
	delay time.Duration
	store store.Store

	mu    sync.Mutex
	fails map[string]string // reference -> failure code
	mem   map[string]convRecord
	calls map[string]int
}

var _ tambala.Converter = (*Converter)(nil)

type convRecord struct {
	DueAt time.Time `json:"due_at"`
	Fail  string    `json:"fail,omitempty"`
}

// NewConverter returns a converter.
func NewConverter(o *ConverterOptions) *Converter {
	c := &Converter{now: time.Now, delay: 2 * time.Second, fails: map[string]string{}, mem: map[string]convRecord{}, calls: map[string]int{}}
	if o != nil {
		if o.Clock != nil {
			c.now = o.Clock
		}
		if o.Delay > 0 {
			c.delay = o.Delay
		}
		c.store = o.Store
	}
	return c
}

// ScriptFailure makes the conversion ref fail with code
// (tambala.ConversionProviderDeclined or any other code, reported as
// other). Scripting after Convert accepted it changes nothing.
func (c *Converter) ScriptFailure(ref, code string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fails[ref] = code
}

// ConvertCalls is how many times Convert was called for ref in this
// process (a test hook).
func (c *Converter) ConvertCalls(ref string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[ref]
}

func (c *Converter) load(ctx context.Context, ref string) (convRecord, bool, error) {
	if c.store == nil {
		r, ok := c.mem[ref]
		return r, ok, nil
	}
	var r convRecord
	found := false
	err := c.store.View(ctx, func(tx store.Tx) error {
		v, err := tx.Get(convBucket, []byte(ref))
		if err == store.ErrNotFound {
			return nil
		}
		if err != nil {
			return err
		}
		found = true
		return json.Unmarshal(v, &r)
	})
	return r, found, err
}

// Convert accepts the conversion ref (again: nothing changes).
func (c *Converter) Convert(ctx context.Context, req tambala.ConversionRequest) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls[req.Reference]++
	rec := convRecord{DueAt: c.now().Add(c.delay), Fail: c.fails[req.Reference]}
	if c.store == nil {
		if _, ok := c.mem[req.Reference]; !ok {
			c.mem[req.Reference] = rec
		}
		return nil
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return c.store.Update(ctx, func(tx store.Tx) error {
		if _, err := tx.Get(convBucket, []byte(req.Reference)); err == nil {
			return nil
		} else if err != store.ErrNotFound {
			return err
		}
		return tx.Put(convBucket, []byte(req.Reference), b)
	})
}

// Status reports ref: pending until its delay has passed, then completed
// or its scripted failure; an unknown ref is tambala.ErrUnknownReference.
func (c *Converter) Status(ctx context.Context, ref string) (tambala.ConverterStatus, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok, err := c.load(ctx, ref)
	if err != nil {
		return tambala.ConverterStatus{}, err
	}
	if !ok {
		return tambala.ConverterStatus{}, tambala.ErrUnknownReference
	}
	if c.now().Before(r.DueAt) {
		return tambala.ConverterStatus{State: tambala.ConverterPending}, nil
	}
	if r.Fail != "" {
		return tambala.ConverterStatus{State: tambala.ConverterFailed, FailureCode: r.Fail}, nil
	}
	return tambala.ConverterStatus{State: tambala.ConverterCompleted}, nil
}
