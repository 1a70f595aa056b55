package tambala_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/tambalapay/tambala"
	"github.com/tambalapay/tambala/adapters/memstore"
	"github.com/tambalapay/tambala/errcode"
	"github.com/tambalapay/tambala/money"
)

// Four-eyes: above the asset's threshold an operator's funding moves no
// money and waits for a second staff member (Portal.Operator(...)
// .Approvals().Approve); the automation may reject it, never approve it.
func ExampleApprovals() {
	ctx := context.Background()
	s := memstore.New()
	defer s.Close()
	e, _ := tambala.New(s, nil)
	op := e.Operator()
	org, _ := op.CreateOrganization(ctx, tambala.NewOrganization{Name: "Acme Ltd"})
	_ = op.Approvals().SetThreshold(ctx, "MWK", money.FromInt(money.MWK, 1_000_000))

	err := op.Fund(ctx, org.ID, money.FromInt(money.MWK, 5_000_000), "wire-42")
	var pending *tambala.ApprovalPendingError
	if errors.As(err, &pending) {
		fmt.Println(pending.Approval.Kind, pending.Approval.Amount, pending.Approval.Status)
	}
	_, err = op.Approvals().Approve(ctx, pending.Approval.ID)
	fmt.Println(errcode.Of(err), errcode.Message(err))
	rejected, _ := op.Approvals().Reject(ctx, pending.Approval.ID, "No such wire arrived.")
	fmt.Println(rejected.Status)
	// Output:
	// funding 5000000.00 pending
	// forbidden A staff member approves: the automation cannot.
	// rejected
}
