package archtest

import (
	"go/importer"
	"go/token"
	"go/types"
	"regexp"
	"strings"
	"testing"
)

// TestEngineAPIIsTyped type-checks the root package and walks the method
// sets of its faces (*Engine, *Client, ClientV1, *Operator, Desk,
// *BackOffice, *Approvals, *People, *Sessions, *OrgAdmin): no exported method may take or return a request or
// response body (a byte slice, json.RawMessage or any named type over
// one), a net/http type, or an
// HTTP status (an integer parameter or result named status), nor reach
// one through the fields of the types it takes and returns. Transports
// turn bodies and statuses into the typed calls; the engine never sees
// them. A host reads each face in one sitting: no face has more than 30
// exported methods, the Engine itself at most 12 (its entry points and
// face getters), and no face is named Accounts (in a library whose ledger
// has accounts, the people who sign in are People).
const (
	maxFaceMethods   = 30
	maxEngineMethods = 12
)

func TestEngineAPIIsTyped(t *testing.T) {
	pkg, err := importer.ForCompiler(token.NewFileSet(), "source", nil).Import(module)
	if err != nil {
		t.Fatalf("type-checking %s: %v", module, err)
	}
	c := apiChecker{seen: map[types.Type]bool{}}
	if pkg.Scope().Lookup("Accounts") != nil {
		t.Error("the root package has an identifier named Accounts; the face of people is People")
	}
	for _, face := range []string{"Engine", "Client", "ClientV1", "Operator", "Desk", "BackOffice", "Approvals", "People", "Sessions", "OrgAdmin"} {
		tn, ok := pkg.Scope().Lookup(face).(*types.TypeName)
		if !ok {
			t.Fatalf("no type %s in the root package", face)
		}
		methods := types.NewMethodSet(types.NewPointer(tn.Type()))
		exported := 0
		for i := range methods.Len() {
			fn := methods.At(i).Obj().(*types.Func)
			if !fn.Exported() {
				continue
			}
			exported++
			sig := fn.Type().(*types.Signature)
			for _, tuple := range []*types.Tuple{sig.Params(), sig.Results()} {
				for j := range tuple.Len() {
					v := tuple.At(j)
					where := face + "." + fn.Name() + " " + describe(v)
					if statusName.MatchString(v.Name()) && isInteger(v.Type()) {
						c.problems = append(c.problems, where+": an HTTP status")
					}
					c.check(v.Type(), where)
				}
			}
		}
		if exported < 5 {
			t.Errorf("only %d methods on *%s: is this a face of the engine?", exported, face)
		}
		limit := maxFaceMethods
		if face == "Engine" {
			limit = maxEngineMethods
		}
		if exported > limit {
			t.Errorf("*%s has %d exported methods; at most %d", face, exported, limit)
		}
	}
	for _, p := range c.problems {
		t.Error(p)
	}
}

// TestAPICheckerCatchesBodies keeps the checker honest on made-up types.
func TestAPICheckerCatchesBodies(t *testing.T) {
	byteSlice := types.NewSlice(types.Typ[types.Byte])
	body := types.NewNamed(types.NewTypeName(token.NoPos, nil, "RawMessage", nil), byteSlice, nil)
	field := func(name string, typ types.Type) *types.Var {
		return types.NewField(token.NoPos, nil, name, typ, false)
	}
	outcome := types.NewNamed(types.NewTypeName(token.NoPos, types.NewPackage(module, "tambala"), "Outcome", nil),
		types.NewStruct([]*types.Var{field("Status", types.Typ[types.Int]), field("Body", body)}, nil), nil)
	for _, bad := range []types.Type{byteSlice, body, outcome, types.NewPointer(outcome), types.NewSlice(outcome),
		types.NewMap(types.Typ[types.String], body)} {
		c := apiChecker{seen: map[types.Type]bool{}}
		c.check(bad, "x")
		if len(c.problems) == 0 {
			t.Errorf("%s passed the checker", bad)
		}
	}
	for _, good := range []types.Type{types.Typ[types.String], types.NewArray(types.Typ[types.Byte], 32),
		types.NewSlice(types.Typ[types.String])} {
		c := apiChecker{seen: map[types.Type]bool{}}
		c.check(good, "x")
		if len(c.problems) != 0 {
			t.Errorf("%s refused: %v", good, c.problems)
		}
	}
}

var statusName = regexp.MustCompile(`(?i)status`)

type apiChecker struct {
	seen     map[types.Type]bool
	problems []string
}

func (c *apiChecker) check(t types.Type, where string) {
	if c.seen[t] {
		return
	}
	c.seen[t] = true
	if n, ok := t.(*types.Named); ok {
		if obj := n.Obj(); obj.Pkg() != nil {
			path := obj.Pkg().Path()
			if path == "net/http" || strings.HasPrefix(path, "net/http/") {
				c.problems = append(c.problems, where+": a net/http type "+n.String())
				return
			}
			if path != module && !strings.HasPrefix(path, module+"/") && path != "encoding/json" {
				return // another module's type (time.Time, apd, ...): not ours to police
			}
		}
		for i := range n.TypeArgs().Len() {
			c.check(n.TypeArgs().At(i), where)
		}
		c.checkUnder(n.Underlying(), where+" ("+n.Obj().Name()+")")
		return
	}
	c.checkUnder(t, where)
}

func (c *apiChecker) checkUnder(t types.Type, where string) {
	switch u := t.(type) {
	case *types.Slice:
		if b, ok := u.Elem().Underlying().(*types.Basic); ok && b.Kind() == types.Byte {
			c.problems = append(c.problems, where+": a byte slice (a request or response body)")
			return
		}
		c.check(u.Elem(), where)
	case *types.Pointer:
		c.check(u.Elem(), where)
	case *types.Array:
		c.check(u.Elem(), where)
	case *types.Map:
		c.check(u.Key(), where)
		c.check(u.Elem(), where)
	case *types.Struct:
		for i := range u.NumFields() {
			if f := u.Field(i); f.Exported() {
				c.check(f.Type(), where+"."+f.Name())
			}
		}
	case *types.Signature, *types.Interface, *types.Chan:
		// ports and callbacks: their own packages' rules apply
	}
}

func isInteger(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsInteger != 0
}

func describe(v *types.Var) string {
	if v.Name() != "" {
		return v.Name()
	}
	return v.Type().String()
}
