package rewrite

import (
	"fmt"
	"go/ast"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// wrapFmtArgs works around the interpreter's handling of a value of a type declared in a cell
// that is passed to a compiled parameter of type any, such as the operands of fmt.Println: the
// interpreter passes the bare value, a struct without methods, so fmt prints its fields where
// Go calls its String or Error method (fmt.Println(T{}) prints "{0}", not what T.String
// returns). Its dynamic assertions to fmt.Stringer or error lose the methods as well, but a
// generic function instantiated with the value's own type keeps them, so the pass passes each
// operand of the compiled fmt package's Print, Println, Sprint, Sprintln, Fprint and Fprintln
// through the session's generic FmtArgName, which returns the value as an error or a
// fmt.Stringer (a wrapper that calls the cell's method) when it is one, and the value itself
// otherwise:
//
//	fmt.Println(t, "x")
//
// runs as
//
//	fmt.Println(_gosbiFmtArg(t), _gosbiFmtArg("x"))
//
// which has the same effect in Go. Of Printf, Sprintf, Fprintf and Errorf, whose format is a
// string literal, it wraps the operands of the verbs for which fmt calls String or Error (%v, %+v,
// %s, %q, %x, %X, and %w in Errorf, which then wraps the value), and not those of %d, a * width,
// %#v (fmt calls GoString) or the other verbs, nor an extra operand; it leaves a call whose format
// is not a string literal, or has an explicit argument index (%[2]v). The pass rewrites only when
// the session's types (or the cell's) have a method String or Error. It leaves a literal nil, a
// basic literal, an operand spread with ..., a lone call (it may return several values) and
// the writer of Fprint, Fprintln and Fprintf. An operand that takes an address (&t, &T{}), of
// a function other than Errorf, goes through FmtPtrName instead, which gives fmt the value
// where it has a method String or Error (Go calls it through the pointer, with the same
// result) and the pointer otherwise. An operand of an interface type of the session, whose
// value a generic helper would mishandle (see heldFmtArg), goes through a function literal
// called where it stands, a type switch that passes the value it holds, as a value of its own
// type, to the helper that an operand of that type gets:
//
//	fmt.Println(sh)
//
// runs, for var sh Shape and a type Sq with a method String on a value receiver, as
//
//	fmt.Println(func(_gosbiV Shape) any { if _gosbiV == nil { return nil }; switch _gosbiW := _gosbiV.(type) { case *Sq: return _gosbiFmtPtr(_gosbiW); case Sq: return _gosbiFmtArg(_gosbiW); }; return _gosbiV }(sh))
//
// with a case for each of the session's types (not generic, no alias) that has a method
// Format, Error or String and may implement the interface, whose name no variable of the cell
// or the session takes, and for any other value the helper that wrapped such an operand
// before the switch (FmtArgName, or FmtValName where a method has a pointer receiver). A value that an explicit conversion made (Shape(Sq{2})), which the interpreter
// records with the interface's type, matches no case and prints by its fields.
//
// When one of the session's methods String or Error has a pointer receiver, the interpreter
// counts it as one of the value's own, so a value of that type would print by it where Go
// prints its fields. There the pass goes by the operand's type as the unit shows it (see
// staticType): a pointer to a type of the session (&t, &T{}, p of type *T, a parameter, a
// field or a result of type *T) goes through FmtPtrName (FmtArgName for Errorf, whose %w
// wraps what it gets), as a pointer's method set has the methods of both receivers; a value of
// a type whose methods Format, Error and String all have a value receiver, and that embeds no
// field, through FmtArgName; a value of another type of the session goes bare, which prints it
// by its fields as Go does for a type whose methods have a pointer receiver; an operand of an
// interface type of the session through the type switch above, whose case for T is left out
// there unless T is of the kind that goes through FmtArgName (the interpreter would find a
// method of *T for the T it holds); and an operand whose type the unit does not show goes
// through FmtValName, which wraps a pointer and leaves any other value, as does an operand of
// type any (the interpreter would hand fmt its own record of the value it holds). The operands
// of Errorf's %w are always wrapped (a value whose Error has a pointer receiver, which vet
// rejects as an operand of %w, is wrapped where Go writes %!w). An operand whose type holds
// values of the session's types nested in it goes through a mirror instead (see fmtMirror). In
// any session it does not help a value returned by a lone call, a pointer to a type whose methods
// have value receivers where the unit does not show its type or Errorf gets it, or a value nested
// in a value whose type the unit does not show; and with pointer receivers, a value of a type the
// unit does not show or held by a variable of type any: fmt prints those by their fields.
//
// A value of a struct type of the session that gets the method fmt calls (Format, Error or
// String, of the signature of fmt.Formatter, error or fmt.Stringer) from an embedded compiled
// type (type Dur struct{ time.Duration; n int }, whose values the interpreter hands to compiled
// code without the promoted methods) is printed by its fields even when wrapped, so the pass
// passes fmt that embedded field instead, which has the method and prints as Go prints the
// value:
//
//	fmt.Println(d, &b)
//
// runs as
//
//	fmt.Println(_gosbiFmtArg((d).Duration), _gosbiFmtArg(&(&b).Buffer))
//
// for type B struct{ bytes.Buffer }, whose String *B gets. Where the method is the Error or
// String of an embedded interface (error, fmt.Stringer, an interface of the session), it
// passes fmt.Errorf("%s", x.Stringer.String()) (with the cell's name of the package fmt), an
// error that fmt prints and spaces as Go prints the value; a nil interface fails the cell,
// where Go prints %!v(PANIC=…). A Format of an interface is left. It does so, whatever the session's
// other methods, for an operand whose type the unit shows (a variable, parameter, composite
// literal, field or result of a declared type, &v, &T{} and a pointer variable), and
// for the verbs for which fmt calls the method (all but %T and %p for Format; not %w, whose
// error Errorf would wrap in place of the value). It leaves a type that declares the method in
// a cell or has a field of its name, one whose promoted methods come from two fields
// (String from one, Error from the other), and a field of a string type among the operands of
// Print, Sprint and Fprint, which fmt spaces by their kinds. A pointer variable goes through
// a function literal that gives fmt a nil pointer as it is (Go prints <nil>); a nil embedded
// pointer on the way to the field fails the cell where Go prints fmt's %!v(PANIC=…).
//
// The name fmt must name the compiled package "fmt" in the cell
// (Env.PackagePath), not a package or variable of the user's, and not be shadowed where the
// call stands by a parameter or local variable of the unit.
//
// Upstream: no upstream issue found.
var wrapFmtArgs = Pass{
	Name:  "wrap-fmt-args",
	Issue: "no upstream issue found",
	Rewrite: func(env Env, u Unit) (string, error) {
		if u.Kind == Import || env.PackagePath == nil {
			return u.Text, nil
		}
		if env.types != nil && len(env.types().specs) > 0 {
			tt := env.types()
			text, err := repeat(u, func(p *parsed) (string, bool) { return p.promoteFmtArg(env, tt.with(env, p)) })
			if err != nil {
				return "", err
			}
			u.Text = text
		}
		var value, pointer bool
		if env.PrintMethods != nil {
			value, pointer = env.PrintMethods()
		}
		// Without String and Error, only a value held in an any needs a mirror (see held), and
		// only where the session declares methods: the interpreter keeps records of their values.
		mirrorsOnly := !value
		if mirrorsOnly && (env.types == nil || len(env.types().methods) == 0) {
			return u.Text, nil
		}
		with := func(p *parsed) *typeTable {
			if env.types == nil {
				return nil
			}
			tt := env.types().with(env, p)
			tt.mirrorsOnly = mirrorsOnly
			return tt
		}
		if u.Result && env.types != nil {
			if p, err := parse(u); err == nil {
				u.Text = p.wrapResult(pointer, with(p))
			}
		}
		return repeat(u, func(p *parsed) (string, bool) { return p.wrapFmtArg(env, pointer, with(p)) })
	},
}

// FmtArgName is the session's generic function that wrap-fmt-args passes fmt's operands
// through.
const FmtArgName = "_gosbiFmtArg"

// FmtPtrName is the session's generic function that wrap-fmt-args passes a pointer to a value
// of a session type among the operands of the print functions through (not Errorf's): it
// returns the pointer, or the value where the method is on a value receiver, as FmtArgName
// does when one has a method Error or String, and the pointer otherwise (a nil pointer, a
// pointer to a pointer or to an interface, which Go prints as <nil> or an address).
const FmtPtrName = "_gosbiFmtPtr"

// FmtValName is the session's generic function that wrap-fmt-args passes an operand of a type
// the unit does not show through where a method String or Error of the session has a pointer
// receiver: it returns a pointer as FmtArgName does, and any other value as it is.
const FmtValName = "_gosbiFmtVal"

// addressOf reports whether an operand takes an address (&v, &T{…}).
func addressOf(a ast.Expr) bool {
	u, ok := ast.Unparen(a).(*ast.UnaryExpr)
	return ok && u.Op == token.AND
}

// printFuncs are the functions of fmt whose operands wrap-fmt-args wraps, with the number of
// leading arguments that are no operands.
var printFuncs = map[string]int{"Print": 0, "Println": 0, "Sprint": 0, "Sprintln": 0, "Fprint": 1, "Fprintln": 1}

// formatFuncs are the functions of fmt with a format whose operands wrap-fmt-args wraps, with
// the index of the format among their arguments.
var formatFuncs = map[string]int{"Printf": 0, "Sprintf": 0, "Fprintf": 1, "Errorf": 0}

// wrapFmtArg returns the unit's text with the operands of calls of fmt's print functions that
// need it wrapped, and false when none does. It wraps every such operand of a call at once,
// and leaves the calls within a wrapped call to the next step, so that a unit is parsed again
// once per level of nested calls, not once per operand. pointer says that a String or Error
// method of the session has a pointer receiver; tt gives the operands' types (without it, only
// Errorf's %w is wrapped there).
func (p *parsed) wrapFmtArg(env Env, pointer bool, tt *typeTable) (string, bool) {
	var edits []edit
	ast.Inspect(p.root, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || call.Ellipsis.IsValid() {
			return true
		}
		wraps := fmtOperandsToWrap(env, call, pointer, tt)
		edits = append(edits, wraps...)
		return len(wraps) == 0
	})
	if len(edits) == 0 {
		return "", false
	}
	return p.replaceAll(edits), true
}

// edit is a replacement of replaceAll: the node put between prefix and suffix.
type edit struct {
	node           ast.Expr
	prefix, suffix string
}

// replaceAll returns the unit's text with the nodes of edits, which do not overlap and come in
// the order of the text, replaced as replace replaces one.
func (p *parsed) replaceAll(edits []edit) string {
	var b strings.Builder
	last := 0
	for _, e := range edits {
		b.WriteString(p.Text[last:p.offset(e.node.Pos())])
		b.WriteString(p.position(e.node.Pos()))
		b.WriteString(e.prefix)
		b.WriteString(p.position(e.node.Pos()))
		b.WriteString(p.src(e.node))
		b.WriteString(e.suffix)
		b.WriteString(p.position(e.node.End()))
		last = p.offset(e.node.End())
	}
	b.WriteString(p.Text[last:])
	return b.String()
}

// fmtOperandsToWrap returns the operands of call that need wrapping when call calls a function
// of the compiled package fmt with operands, each with what to put before it (see fmtHelper)
// and after it, and nil otherwise (pointer and tt as for wrapFmtArg).
func fmtOperandsToWrap(env Env, call *ast.CallExpr, pointer bool, tt *typeTable) []edit {
	name, ok := fmtFuncName(env, call)
	if !ok {
		return nil
	}
	_, printFunc := printFuncs[name]
	ops, verbs := fmtVerbs(name, call)
	var edits []edit
	for i, a := range ops {
		wrap := fmtOperand(a, len(ops) == 1)
		if !printFunc {
			wrap = wrapsVerb(verbs[i], name == "Errorf") && fmtOperand(a, false)
		}
		if !wrap {
			continue
		}
		if prefix := fmtHelper(name == "Errorf", verbs[i], a, pointer, tt); prefix != "" {
			edits = append(edits, edit{a, prefix, ")"})
		}
	}
	return edits
}

// fmtHelper returns what an operand a of fmt's function (Errorf when errorf), printed by the
// verb v, is put after to wrap it (a helper's name and "(", or a function literal up to its
// argument's "("; a ")" closes it), and "" when it goes bare: a pointer to a type of the
// session (&v, or one whose type tt shows) through FmtPtrName, FmtArgName for Errorf, whose %w
// wraps what it gets; a value of an interface type of the session through the function
// literal of heldFmtArg. Without methods on a pointer receiver (pointer false) every other
// operand goes through FmtArgName. With them, the interpreter counts a method of *T as one of
// T's, so a value goes through FmtArgName only where its type's methods have value receivers,
// bare where it is of another type of the session, and through FmtValName, which wraps only a
// pointer, where tt does not show its type. Errorf's %w always wraps, as a value of a cell's
// type without its methods is no error to fmt.
func fmtHelper(errorf bool, v operandVerb, a ast.Expr, pointer bool, tt *typeTable) string {
	ptrHelper := FmtPtrName + "("
	if errorf {
		ptrHelper = FmtArgName + "("
	}
	var t ast.Expr
	ptr := false
	if tt != nil && !addressOf(a) {
		t, ptr = tt.operandType(a)
	}
	if tt != nil && v.verb != 'w' {
		if m := tt.fmtMirror(tt.staticType(a, 0), pointer); m != "" {
			return m
		}
	}
	if tt != nil && tt.mirrorsOnly {
		return ""
	}
	id, session := t.(*ast.Ident)
	session = session && tt.specs[id.Name] != nil && tt.spec(id) == tt.specs[id.Name]
	switch {
	case session && !ptr && tt.isInterface(id):
		return tt.heldFmtArg(id.Name, errorf, v.verb == 'w', pointer)
	case v.verb == 'w':
		return FmtArgName + "("
	case addressOf(a), session && ptr:
		return ptrHelper
	case !pointer:
		return FmtArgName + "("
	case t == nil && tt != nil, tt != nil && tt.isAny(t):
		return FmtValName + "("
	case session && tt.valueReceivers(id.Name):
		return FmtArgName + "("
	}
	return ""
}

// FmtHeldName is the parameter of the function literal that wrap-fmt-args passes an operand of
// an interface type of the session through (see heldFmtArg).
const FmtHeldName = "_gosbiV"

// heldFmtArg returns the function literal, up to the "(" of its argument, that an operand of
// the session's interface type iface goes through: a type switch on the value it holds, with a
// case for each of the session's types with a method Format, Error or String (on a value or a
// pointer receiver) that may implement iface, that passes that value, now of its own type,
// through FmtArgName or FmtPtrName as an operand of that type goes (for Errorf, errorf, and
// its %w, wrap, as fmtHelper says), and passes any other value to the helper that such an
// operand got before the switch (nil for a nil interface, which the interpreter could not give compiled code as a call's result). Passed to a
// generic helper, the interface value would keep the interpreter's node of the expression that
// made it, which the interpreter reads in the helper's frame when the helper asserts the value
// to error or fmt.Stringer: an unrelated slot, so that the second such operand of a cell
// printed <nil> or failed in fmt. The switch matches by the type that the interpreter records
// with the value (on a parameter of type any it would not), and the helper gets a value of a
// concrete type, whose node is the helper's own parameter. The literal is called where the
// operand stands, so fmt gets its result as the interpreter gives compiled code a call's
// result. It is that helper alone when no such type can be named there (none, or all generic,
// aliases or names of variables), or the unit shadows iface.
func (tt *typeTable) heldFmtArg(iface string, errorf, wrap, pointer bool) string {
	other := FmtArgName // what wrap-fmt-args gave such an operand before it had the switch
	if pointer && !wrap {
		other = FmtValName
	}
	if tt.shadowed(iface) {
		return other + "("
	}
	ptrHelper := FmtPtrName
	if errorf {
		ptrHelper = FmtArgName
	}
	ims, _, _ := tt.interfaceMethods(tt.specs[iface].Type, 0)
	ptrs, values := tt.heldCases(ims, ptrHelper, wrap, pointer)
	cases := ptrs + values
	if cases == "" {
		return other + "("
	}
	return fmt.Sprintf("func(%[1]s %[2]s) any { if %[1]s == nil { return nil }; switch _gosbiW := %[1]s.(type) { %[3]s}; return %[4]s(%[1]s) }(", FmtHeldName, iface, cases, other)
}

// heldCases returns the cases of heldFmtArg's type switch for an interface with the methods
// ims, for each of the session's types with a method Format, Error or String that may
// implement it: those of its pointer type, whose value goes through ptrHelper, and those of the
// type itself where a value of it may implement the interface, whose value goes through
// FmtArgName (where wrap or not pointer, or the type's print methods have value receivers).
func (tt *typeTable) heldCases(ims []methodSig, ptrHelper string, wrap, pointer bool) (ptrs, values string) {
	sets, pointerMethods := tt.methodSets(), tt.pointerMethods()
	var p, v strings.Builder
	for _, name := range tt.order {
		if !tt.printsHeld(name) || !satisfies(sets[name], ims) {
			continue
		}
		fmt.Fprintf(&p, "case *%s: return %s(_gosbiW); ", name, ptrHelper)
		value := slices.DeleteFunc(slices.Clone(sets[name]), func(m methodSig) bool { return pointerMethods[name][m.name] })
		if (!pointer || wrap || tt.valueReceivers(name)) && satisfies(value, ims) {
			fmt.Fprintf(&v, "case %s: return %s(_gosbiW); ", name, FmtArgName)
		}
	}
	return p.String(), v.String()
}

// satisfies reports whether a type with the methods ms may implement an interface with the
// methods ims.
func satisfies(ms, ims []methodSig) bool {
	for _, im := range ims {
		if !slices.ContainsFunc(ms, func(m methodSig) bool { return m.mayBe(im) }) {
			return false
		}
	}
	return true
}

// pointerMethods returns the names of the methods that the session declares on a pointer
// receiver, by the type's name: a value of the type has none of them.
func (tt *typeTable) pointerMethods() map[string]map[string]bool {
	ms := map[string]map[string]bool{}
	for _, fd := range tt.methods {
		if _, star := ast.Unparen(fd.Recv.List[0].Type).(*ast.StarExpr); !star {
			continue
		}
		recv, _ := receiver(fd)
		name := tt.aliased(recv)
		if ms[name] == nil {
			ms[name] = map[string]bool{}
		}
		ms[name][fd.Name.Name] = true
	}
	return ms
}

// printsHeld reports whether heldFmtArg gives the session's type name a case: a type that is
// no interface, no alias and not generic, that the session gives a method Format, Error or
// String, and whose name is not shadowed.
func (tt *typeTable) printsHeld(name string) bool {
	ts := tt.specs[name]
	if ts == nil || ts.Assign.IsValid() || ts.TypeParams != nil || tt.isInterface(ts.Name) || tt.shadowed(name) {
		return false
	}
	for _, fd := range tt.methods {
		if recv, _ := receiver(fd); tt.aliased(recv) == name && slices.Contains(printMethods, fd.Name.Name) {
			return true
		}
	}
	return false
}

// shadowed reports whether the name of the session's type name names something else where the
// unit stands: a variable or function of the cell's units or a variable of the session, or a
// declaration of the unit. A case of heldFmtArg would not name the type there.
func (tt *typeTable) shadowed(name string) bool {
	if _, def := tt.cellDefs[name]; def || tt.env.IsVar != nil && tt.env.IsVar(name) {
		return true
	}
	if tt.p == nil {
		return false
	}
	found := false
	ast.Inspect(tt.p.root, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == name && id.Obj != nil {
			ts, _ := id.Obj.Decl.(*ast.TypeSpec)
			found = ts == nil || ts != tt.specs[name] && !tt.topLevel(ts)
		}
		return !found
	})
	return found
}

// valueReceivers reports whether a value of the session's type typeName has each method
// Format, Error and String that the session declares on it, or on its pointer type: none is
// on a pointer receiver, and it embeds no field, which could promote one.
func (tt *typeTable) valueReceivers(typeName string) bool {
	if st, ok := tt.specs[typeName].Type.(*ast.StructType); ok {
		for _, f := range st.Fields.List {
			if len(f.Names) == 0 {
				return false
			}
		}
	}
	for _, fd := range tt.methods {
		recv, _ := receiver(fd)
		if tt.aliased(recv) != tt.aliased(typeName) || !slices.Contains(printMethods, fd.Name.Name) {
			continue
		}
		if _, star := ast.Unparen(fd.Recv.List[0].Type).(*ast.StarExpr); star {
			return false
		}
	}
	return true
}

// fmtFuncName returns the name of the function of the compiled package fmt that call calls.
func fmtFuncName(env Env, call *ast.CallExpr) (string, bool) { return pkgFuncName(env, call, "fmt") }

// pkgFuncName returns the name of the function of the compiled package path that call calls.
func pkgFuncName(env Env, call *ast.CallExpr, path string) (string, bool) {
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return "", false
	}
	return pkgSelName(env, sel, path)
}

// pkgSelName returns the name that sel selects from the compiled package path, false when
// sel selects from something else.
func pkgSelName(env Env, sel *ast.SelectorExpr, path string) (string, bool) {
	id, ok := sel.X.(*ast.Ident)
	// id.Obj is set where the parser resolved the name within the unit: a parameter or a local
	// variable named fmt that shadows the package there.
	if !ok || id.Obj != nil || env.PackagePath(id.Name) != path {
		return "", false
	}
	return sel.Sel.Name, true
}

// wrapsVerb reports whether fmt calls the Error or String method of an operand of a format
// (of Errorf when errorf) for what the format does with it, v: for %v and %+v, %s, %q, %x and
// %X, and for %w in Errorf, and not for %#v, %#w, a width, a precision or any other verb. An extra operand, which fmtVerbs leaves, is not wrapped: its value in
// %!(EXTRA …) is printed by a method too, but wrapped it would print the wrapper's type.
func wrapsVerb(v operandVerb, errorf bool) bool {
	return v.verb != '*' && methodVerb(v.verb, v.sharp, errorf)
}

// operandVerb is what a format does with one operand: its verb and whether it has the flag #,
// or '*' for a width or precision.
type operandVerb struct {
	verb  rune
	sharp bool
}

// formatVerbs returns what the format does with each operand that it consumes, in order. It
// follows fmt's parsing of a format; it returns false when the format is no string literal,
// or has an explicit argument index such as %[2]v, which it does not follow.
func formatVerbs(format ast.Expr) ([]operandVerb, bool) {
	lit, ok := ast.Unparen(format).(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return nil, false
	}
	f, err := strconv.Unquote(lit.Value)
	if err != nil {
		return nil, false
	}
	var ops []operandVerb
	for i := 0; i < len(f); {
		if f[i] != '%' {
			i++
			continue
		}
		if i, ops, ok = verbOperands(f, i+1, ops); !ok {
			return nil, false
		}
	}
	return ops, true
}

// verbOperands follows the verb whose flags start at f[i], as fmt does, and adds the operands
// that it consumes to ops. It returns the index after the verb, and false at an explicit
// argument index.
func verbOperands(f string, i int, ops []operandVerb) (int, []operandVerb, bool) {
	sharp := false
	for ; i < len(f) && strings.IndexByte("#0+- ", f[i]) >= 0; i++ {
		sharp = sharp || f[i] == '#'
	}
	if index(f, i) {
		return i, nil, false
	}
	i, ops = widthOrPrecision(f, i, ops)
	if i+1 < len(f) && f[i] == '.' {
		if index(f, i+1) {
			return i, nil, false
		}
		i, ops = widthOrPrecision(f, i+1, ops)
	}
	if i >= len(f) {
		return i, ops, true
	}
	verb, size := utf8.DecodeRuneInString(f[i:])
	switch verb {
	case '[':
		return i, nil, false
	case '%':
		return i + size, ops, true
	}
	return i + size, append(ops, operandVerb{verb, sharp}), true
}

// index reports whether an explicit argument index starts at f[i].
func index(f string, i int) bool { return i < len(f) && f[i] == '[' }

// widthOrPrecision skips the width or precision of a verb that starts at f[i], adding an
// operand for it when it is *.
func widthOrPrecision(f string, i int, ops []operandVerb) (int, []operandVerb) {
	if i < len(f) && f[i] == '*' {
		return i + 1, append(ops, operandVerb{verb: '*'})
	}
	for i < len(f) && '0' <= f[i] && f[i] <= '9' {
		i++
	}
	return i, ops
}

// methodVerb reports whether fmt calls an operand's Error or String method for the verb.
func methodVerb(verb rune, sharp, errorf bool) bool {
	switch verb {
	case 's', 'q', 'x', 'X':
		return true
	case 'v':
		return !sharp
	case 'w':
		return errorf && !sharp
	}
	return false
}

// fmtOperand reports whether an operand of a print function needs wrapping: it may be a value
// of a cell's type and it is not wrapped yet. A lone call is left, as it may give several
// values.
func fmtOperand(a ast.Expr, alone bool) bool {
	a = ast.Unparen(a)
	switch a := a.(type) {
	case *ast.BasicLit:
		return false
	case *ast.Ident:
		return a.Name != "nil"
	case *ast.CallExpr:
		if fmtWrapped(a) {
			return false
		}
		return !alone
	}
	return true
}

// fmtWrapped reports whether call is an operand that wrap-fmt-args passed through one of its
// helpers or function literals.
func fmtWrapped(call *ast.CallExpr) bool {
	if id, ok := call.Fun.(*ast.Ident); ok && (id.Name == FmtArgName || id.Name == FmtPtrName || id.Name == FmtValName) {
		return true
	}
	return heldCall(call)
}

// heldCall reports whether call calls the function literal of heldFmtArg or of fmtMirror.
func heldCall(call *ast.CallExpr) bool {
	lit, ok := call.Fun.(*ast.FuncLit)
	if !ok || len(lit.Type.Params.List) != 1 {
		return false
	}
	names := lit.Type.Params.List[0].Names
	return len(names) == 1 && (names[0].Name == FmtHeldName || strings.HasPrefix(names[0].Name, FmtMirrorName))
}
