// Package interp is a notebook session on the yaegi Go interpreter, and the three programs
// built on it: the kernel's worker process (WorkerMain), the script runner (ScriptMain) and
// the terminal REPL (REPLMain).
//
// # Cells
//
// A cell may mix imports, declarations (func, method, type, var, const), statements and a
// trailing expression, whose value is the cell's result. The session splits each cell with
// go/parser and evaluates the parts in order. It keeps a registry of declarations so that:
//
//   - imports already made are not made again, and packages a cell uses without importing
//     them (mat.NewDense, strings.Fields, …) are imported automatically, with a note;
//   - re-running a cell works; a redefined function, and a variable defined anew (c := 7 after
//     c := 1), take effect in the functions of earlier cells that call or read them (they are
//     evaluated again); a function literal made earlier keeps the variable it captured, as in
//     Go;
//   - a redefined type or method, which the interpreter cannot change, keeps its old
//     definition with a warning that names %reset as the way out;
//   - a failed cell leaves the functions of earlier cells working, and undoes the definitions
//     of its top-level statements that did not run (a variable defined anew keeps its old
//     value, a new one stays undefined).
//
// The parts are compiled one at a time, each when its turn comes: the imports, then each run
// of declarations or of statements (a statement that defines anew a variable of the session
// starts one), then the trailing expression, and in a cell with magics each magic and each
// stretch of Go between them. A part that does not compile is therefore found after the parts
// before it ran, and what they did stays (output, variables, functions): its error ends with
// a note that says so, "(lines 1–2 of this cell ran before this error was found, …)". A cell
// whose first part does not compile runs nothing, as in Go, and has no such note; so does a
// cell whose trailing expression uses a name that nothing defines, which the session finds
// before the cell runs.
//
// Errors name the cell and the position, as in "cell [3] line 2:5: undefined: foo"; a panic
// shows its value and the frames of the user's cells. Interrupting a cell stops interpreted
// loops at once and library calls that poll sbi.Canceled within one step. Another call into
// compiled code runs to its end: the cell reports the interrupt only then, and nothing of it
// runs afterwards (the kernel restarts the worker if that takes longer than its grace period).
// The functions of earlier cells, function literals included, go on working after an
// interrupt. A statement res, err := f(…) whose compiled call returned when the interrupt
// came keeps what the call returned. Interpreted goroutines that run while the cell stops end
// with it; one that waits then in compiled code goes on, and so does one of an earlier cell that waits on a
// channel. A function literal made while the interrupted cell ran (by the cell, or by a
// function it called) ends at once where it would wait on a channel; the interrupt's error
// says so when the cell, or a function of the session that it names, has one that may. So
// does a method of the session's types called through an interface (an error, a fmt.Stringer)
// that a function made while the cell ran, even when compiled code such as fmt.Println calls
// it; the interrupt's error names such methods that may wait.
//
// One output of a cell (a display, its result, its error) may have at most ipc.MaxMessage
// (256 MiB) once encoded: a larger display or result fails the cell with OutputTooLarge, and
// an error whose message and trace have more than a sixteenth of that is cut, with a note,
// so that it reaches the cell. The worker and its state go on in both cases.
//
// # Workarounds
//
// Faults of the interpreter that a rewrite of the source avoids are avoided by the passes of
// package rewrite, which the session runs on a cell's items after splitting them and before
// evaluating them; each pass names the fault and its upstream issue, and a canary test tells
// when upstream has fixed it.
//
// Errors take the same habit: package explain turns what the interpreter reports for a failed
// cell (a refusal to compile, a panic and its frames) into the cell's one Error, with the
// cell's own positions and an explanation where the interpreter's message misleads; each of its
// explainers names the behaviour of the interpreter it covers and has a canary test. The seam
// is errors.go: the session says what kind of failure it has and answers the explainers'
// questions about the cell and its declarations.
//
// # Interpreted and compiled code
//
// A program that hosts a session (the kernel's worker, the script runner, the REPL) links a
// fixed set of compiled packages with their symbol tables. A cell that imports another package,
// or a %%compile cell (Go declarations compiled natively into a per-notebook package), needs a
// program that links more: the session asks package extend to build it (cached), then the
// process replaces itself by that program (execve: same process id, same pipes to the kernel)
// and hands over a resume file, with the earlier successful cells, which the new program runs
// again with their output discarded (unless the user, asked, declines), and the cell that
// asked, which it then runs. A failed
// build fails the cell and changes nothing. The seam is extension.go: Session.Execute records
// the cells, runImport calls linkPackages, and each host enables switching and resumes.
//
// A value of a type declared in a cell that becomes a compiled interface (an sbi.Embedding,
// a dist.Distribution, a mat.Matrix, an error) reaches compiled code in a wrapper: a compiled
// type with the methods of that interface, which calls the cell's methods. The interpreter
// makes it where it assigns the value to a variable, a field or an element of the interface
// type, passes it to a parameter, returns it or sends it on a channel; the rewrite
// wrap-interfaces makes it also for an element of a compiled struct's literal
// (sbi.NPEConfig{Embedding: myEmbedding{}}) and a conversion (sbi.Embedding(myEmbedding{})).
// Two limits remain:
//   - a value passed to a compiled variadic parameter of an interface type, and a value of the
//     type error held in a variable whose type the cell does not show where it is stored (one
//     received from a channel, e = <-ch), goes bare and fails the cell: pass a slice literal,
//     errors.Join([]error{myErr{}}...), and keep such an error in a variable of its own type
//     (e := myErr{}), not of type error (the rewrite fresh-wrappers, below, gives a wrapper to
//     var e error = myErr{} and e = v with v of a cell's type);
//   - the wrapper has the interface's methods and no others, so a library that asks whether
//     the value has more (an optional interface such as sbi.TrialCounter, sbi.InputLayout,
//     sbi.SavableEmbedding, fmt.Stringer) gets no: declare the value with the interface the
//     library should see, var e sbi.TrialCounter = myEmbedding{}, and pass e (one interface per
//     value).
//
// fmt's Print, Println, Sprint, Sprintln, Fprint and Fprintln call the String and Error methods of
// a cell's value (the rewrite wrap-fmt-args); so do Printf, Sprintf, Fprintf and Errorf for the
// verbs %v, %+v, %s, %q, %x and %X, and Errorf's %w wraps the value (errors.Unwrap gives back an
// error whose Error is the value's, not the value: see the types of cells below). A pointer prints
// by the methods of both receivers, as in Go: &t, &T{}, and a variable, parameter, field or result
// of type *T (s := &Stack{}; fmt.Println(s)). Where one of the session's String or Error methods
// has a pointer receiver, the interpreter would print a value of type T by a method of *T, which
// Go does not call: there a value prints by its methods where the cell shows its type (a variable,
// parameter, literal, field or result of type T) and all of T's String, Error and Format have a
// value receiver, and by its fields otherwise (a value of a type with a method on a pointer
// receiver, as in Go, but also one of a type that embeds a field or mixes receivers, String on T
// and Error on *T, where Go calls String); a value whose type the cell does not show (one that the
// rewrite cannot type from the cell's source and the session's declarations) prints by its methods
// if it is a pointer to a type with pointer receivers, and by its fields otherwise. In any
// session, a value held by an interface type of the session where the cell shows that type (var
// sh Shape = &Sq{2}, a parameter, field or element of type Shape; not a range variable) prints
// as a value of its own type does where the cell shows it, when that type is a non-generic type
// of the session with a method String, Error or Format; one that an explicit conversion made (Shape(Sq{2})) prints by its fields, as the
// interpreter records it with the interface's type (a type switch on it takes no case either).
// A held value of a generic type, or of a type whose name the cell or the session gives a
// variable, prints as before that switch: by its methods in a session without pointer
// receivers and by its fields in one with them, unless it is a pointer (a second such value in
// a cell or a session may print <nil> or fail the cell, the interpreter's fault).
// The cell's result shows a value of type T by a method of *T
// (S{} shows what (*S).String returns). A nil pointer prints as <nil>, where Go calls its method
// (which may handle a nil receiver). fmt does not call a cell type's Format: a value prints by
// its String or Error, or by its fields where it has neither, where Go calls Format.
// A value nested in another (an element of a slice or array, a value of a map, an exported
// field of a struct, what the operand points to) prints by its String or Error where Go calls
// them, when the cell shows the type of the operand that holds it and that type names the nested
// one ([]T, map[string]*T, [][]T, a struct type of the session with a field of type T, []Shape):
// fmt gets a value that it prints as a copy of the operand made when it prints it (so that it
// reads the elements of a slice, map or pointer after every operand was evaluated, as in Go), a
// []any, a map of the same keys to any, or a struct of the same field names with fields of type
// any, whose elements are passed on as operands of their own types are (by the rules above, so an
// element of a type with String on a pointer receiver prints by its fields, as in Go), and which
// %v, %+v, %s, %q, %x and %X print, with the same flags, width and precision, as they print the
// value; %#v and %T get the value itself. The cell's result shows such a value as fmt.Println prints it
// (a struct with its field names, as every struct shows), and a value of a cell's type held by a
// variable of type any or of an interface type of the session by its method, as fmt prints it.
// An element of type any ([]any, map[string]any, [][]any, a struct field of type any) that holds
// a value of a cell's type prints, printed or as the cell's result, by its String or Error where
// the value's method set has one (a *T for a String on a pointer receiver), by its fields
// otherwise, and never as the interpreter's record of the value, in a session whose types have
// methods of any names; a compiled value or nil prints as it is. Where two types of the session
// are declared as the same type (type E struct{} and type Empty struct{}), or a compiled value
// is a pointer to what one is declared as (&struct{ X int }{5} with type P struct{ X int }), the
// interpreter cannot tell them apart, and such an element may print by the other's method. A
// nested value still prints by its fields where Go calls the method when it is a key of a map, or
// when the operand's type holds a struct that embeds a field or has a field named _ or a field
// tag, a type of the session with a method Format or with String and Error on different
// receivers, a generic type, a type that holds itself in a slice or map, a named array length,
// an element type of the kind byte, or a name that the cell shadows where the value is printed.
// The rewrite goes by the operand's type as the cell shows it, so an operand whose type it
// cannot tell (a slice expression such as ps[1:], a receive, a range or type-switch variable, a
// method's result, a promoted field), one whose type nests such a value more than eight levels
// deep ([][][][][][][][][]T), and a cell's result of type any that the same cell assigned
// (var a any = T{3}; a) print by their fields.
// In a session where a String or Error has a pointer receiver, a value held by a variable of type
// any prints by its fields.
// Everywhere, fmt prints by the fields where Go calls the method: a value passed with a format
// that is not a string literal (a variable, "%v"+"\n") or has an explicit argument index (%[1]v),
// a value whose verb is %#v (Go calls GoString) or an invalid one, an extra operand, a pointer to
// a type whose methods have value receivers passed to Errorf or whose type the cell does not show,
// a pointer held in a variable of type any, a value nested in a value whose type the cell does not
// show (var a any = []T{…}, the result of a call of a compiled function), the operand of a lone
// call (fmt.Println(f())), and a value printed by log. Use the method, fmt.Printf("%s",
// t.String()), or print a pointer whose type the cell shows. A value whose String, Error or Format
// is promoted from an embedded compiled type (see below) is printed by that embedded field
// instead.
//
// Compiled code cannot compare a value of a cell's error type, nor call its methods Unwrap,
// Is and As: the interpreter's wrapper has Error only, is not comparable and hides the value's
// type (two cell types with the same fields look alike, to type assertions in cells too). In
// a session whose types have a method Error, the rewrite wrap-errors sends errors.Is,
// errors.As and errors.Unwrap to helpers that answer as package errors where that is Go's
// answer (a compiled target such as io.EOF or an sbi error, found or not, through chains that
// hold cell errors without those methods; errors.As into a compiled type or error) and
// otherwise fail the cell with an explanation: errors.Is of a cell's error value, bare or
// wrapped (errors.Is(e, e), errors.Is(fmt.Errorf("x: %w", ErrBad), ErrBad)), unless found
// otherwise; a chain that holds a cell's error, not found otherwise, when a session type has a
// method Unwrap, Is or As; errors.As into a variable of a cell's type, or of a compiled
// interface other than error when the chain holds a cell's error; errors.Unwrap of a cell's
// error when a session type has Unwrap, Is or As; and a chain where fmt.Errorf got a cell's
// value without its methods (%!w). Make
// sentinels with errors.New (var ErrBad = errors.New("bad")) and wrap them with %w, or call the
// cell type's methods yourself. A function value (f := errors.Is, g(errors.Unwrap)) becomes a
// function literal that calls the helper, so it answers or fails as a call does. A type
// that gets Error by embedding (type MyErr struct{ error }) counts as one with a method Error;
// yaegi cannot hand its values to the helpers (a panic of reflect.StructOf about embedded
// interfaces), so errors.Is, errors.As and errors.Unwrap of one fail the cell: give the field
// a name and declare Error (type MyErr struct{ err error }). fmt prints a value of a type that
// embeds an interface with that panic (%!v(PANIC=Error method: …)) or by its fields, where the
// cell does not show the value's type (held in an any, nested in a slice): print e.Error()
// there. Where it does, wrap-fmt-args gives fmt the result of the interface's method (below).
// Methods promoted from an embedded interface or an embedded type of the session count for the
// rewrites (wrap-errors, guard-assertions); those of an embedded compiled type that is no
// interface count for check-interface-assertions and guard-assertions only (such a value never
// becomes an error to compiled code: var err error = e fails with "method not found"). A struct
// whose only field embeds such a type with an unexported method (type Ev struct{ time.Time },
// struct{ *bytes.Buffer }, struct{ time.Duration }, struct{ tar.Header }) gets its methods in a
// form that ends the process with a fatal error of the Go runtime ("type offset base pointer
// out of range", which no recover stops) once compiled code looks for an interface of its
// value: fmt printing it, or a slice, pointer or struct holding it, log, the cell's result. One
// whose methods are all exported (struct{ image.Point }, struct{ *sync.Mutex }) prints as in
// Go, but a pointer to it has none of them: fmt prints &p as &(1,2) where Go prints (1,2), and
// any(&p).(fmt.Stringer) answers no. As the value reaches compiled code through any variable of
// type any, the rewrite check-embedded-compiled fails the declaration of both kinds of type (in
// a function too), naming the field to write instead (T time.Time) and which of the two faults
// it avoids. With other fields beside it (type Dur struct{ time.Duration; n int }) the
// interpreter does not embed the field for compiled code: method calls in cells work
// (d.Seconds()), but fmt prints the fields ({1s 2}) where Go calls the promoted String (1s);
// and, with other fields or without, a pointer to a struct that embeds a compiled type whose
// methods all have a pointer receiver (type B struct{ bytes.Buffer }, which the check above
// lets pass) has none of them (fmt prints &b as &{{[104 105] 0 0}} where Go prints hi). For
// fmt's operands whose type the cell shows (a variable or parameter of type Dur or *Dur, a
// composite literal, &b, a field or result of a declared type), the rewrite wrap-fmt-args
// passes fmt the embedded field that has the method fmt calls (d.Duration, &b.Buffer), which
// prints as Go does, for the verbs for which fmt calls it (not %w of Errorf, which would wrap
// the field). It goes by Go's rules of promotion and by the methods' signatures: a method of
// another signature (time.Time's Format(layout string) string, no fmt.Formatter) is none that
// fmt calls, so %d prints an embedded time.Time's struct by its fields; an embedded interface
// (error, fmt.Stringer, an interface of the session) gives its methods at its depth, and for
// its Error or String fmt gets the method's result (as an error, which fmt prints alike); a
// type that gets Format from an embedded interface prints by its fields. A nil embedded pointer
// on the way to the field, or a nil embedded interface whose method fmt calls, fails the cell
// where Go prints fmt's %!v(PANIC=…). The others print by the fields without a word: such a
// value held in a variable of type any, nested in a slice, map or struct, returned by a lone call, or printed
// by log or as the cell's result; a type whose Format, Error and String come from different
// fields; a field of a string type among several operands of Print, Sprint or Fprint. Call the
// method (d.String(), b.String()) there. A type assertion or a case to an interface that the
// promoted methods satisfy answers no (x.(fmt.Stringer) with x of type any, a *B for type B
// struct{ bytes.Buffer }) or fails with an error of reflect (any(d).(fmt.Stringer)), where Go
// answers yes: check-interface-assertions fails such a cell (see below). It counts the methods
// of the embedded type's pointer type, which a pointer to the struct gets, by their names and
// signatures: in a session with type B struct{ bytes.Buffer; n int }, an assertion or a case to
// io.Writer, io.Reader, fmt.Stringer or any other interface whose methods *bytes.Buffer has
// (Write, Read, String, …) fails the cell for every value, a B (which Go answers no for, as B
// has none of them) and a compiled *os.File or time.Duration included; one to fmt.Formatter
// after type Ev struct{ time.Time; N int } runs, as time.Time's Format(layout string) string is
// not fmt.Formatter's.
//
// The interpreter knows a type declared in a cell only as the type it is declared as, without
// its name: type T1 struct{ A int } and type T2 struct{ A int } are one type to it, and so are
// type A int and int, and type Pt struct{ X, Y int } is image.Point to a type assertion. Where a
// type assertion (x.(T), comma-ok or not) or a case of a type switch names a type it cannot
// tell from another, the rewrite check-type-identity fails the cell, naming both: give the
// types fields that differ (a struct with a field of its own for type A int), or tell the
// values apart by a method. It counts the session's types, what each is declared as (int for
// type A int, []float64 for type V []float64) unless that is a struct, and the other cases of
// the switch. For a type assertion only (not a case of a type switch, which the interpreter
// matches by the value's compiled type and so answers as Go does), it also counts compiled
// struct types of the same fields as a cell's struct type, but for empty ones: those of the
// packages the session or the cell imports or names, and the packages of gosbi's module that
// an imported package of gosbi imports (its functions hand out values of those packages' types
// in interfaces): after importing sbi/dist, which does not import display, a cell's type
// ValidationError struct{ Msg string } is not taken for display.CheckError. A value of a compiled struct type of another package, which only a function of
// an imported package could hand out in an interface, passes an assertion to a cell's struct
// type of the same fields. An assertion or a case to a type made of no type of the session
// and no unnamed struct (float64, string, []any, image.Point) counts only the session's types
// that the cell names as a type (anywhere, a case of the same switch too; a variable, field
// or key of that name does not count), so that after type Celsius float64 a cell may walk
// decoded JSON with x.(float64): in a cell that does not name Celsius, a Celsius passes
// x.(float64) (Go says no), whether an earlier cell stored it in an any or the cell gets it
// from a session function's result or a field (any(f()).(float64), any(r.T).(float64)), and
// a value of type A int passes x.(int). It cannot count a value of an unnamed struct type of
// the same fields (struct{ A int }{1} passes x.(T1)). The interpreter compares interface values
// by what their types are declared as, so any(T1{}) == any(T2{}) is true to it, and a T2 key
// finds a T1's entry of a map[any]int. In a session whose types hold two it cannot tell apart
// (T1 and T2, A and int), check-type-identity fails a comparison (== or !=) of an interface
// value with a value of such a type or with another interface value, an index of a map of
// interface keys by one or a delete of such a key, and a literal of such a map with keys of two such types, naming both
// types: compare values of the types themselves, or make the types differ. It follows the types
// the cell writes (conversions, composite literals, make and new, declared types of variables, parameters,
// results, fields and elements, and the session's variables and functions): beside an operand
// of an interface type, one of a type it cannot find (a compiled function's result) counts as
// an interface value and a variable of a compiled package (io.EOF) as none of the session's
// types; a comparison of two operands of types it cannot find is not checked. Like an assertion to int, a
// comparison with a constant (x == 1) counts type A int only where the cell names A, and a
// comparison with an interface value counts the pair of A and int only so. A comparison of
// interface values in a session with no such pair is left as it is (err == io.EOF, x == nil).
// The interpreter fails a switch on an interface value with case values (switch v { case 1: }
// with v of type any) with an error of reflect, so the rewrite bind-switch-tag makes it a
// switch without a tag whose cases compare the tag, evaluated once, with each value in turn
// (switch _gosbi_tag := v; { case _gosbi_tag == 1: }), as Go does; the comparisons are then
// checked as above (the error names the switch's case). A switch with an init statement whose
// tag is a variable (switch v := g(); v) compares the variable itself with each value, so a
// case value that assigns to it (through a function literal) may change what the values are
// compared with, where Go compares the value it had. It leaves a switch with an init
// statement whose tag is no variable (switch x := f(); g(x)), and one whose tag's type the cell
// does not show (a compiled function's result), which fail as before. A type switch without
// a variable (switch x.(type)), whose cases of a
// cell's type or of an interface never match in the interpreter, runs as one with a variable
// (the rewrite bind-type-switch). A value of a cell's struct type
// with fields that a compiled interface with methods has held (a function's result of type
// error, the error that errors.Unwrap gives back, a fmt.Stringer) is no longer of its type to
// the interpreter, which keeps one of its fields in its place: a type assertion or switch to
// such a type fails the cell when the value is one of those (the rewrite guard-assertions), and
// answers as Go does otherwise (a value of type any, of an interface of the cell, a pointer).
// Call the value's methods, or keep it in a variable of its own type.
//
// The interpreter does not see the methods of a cell's type through a type assertion or a
// type switch to an interface: x.(fmt.Stringer) of a value of type S with a method String
// answers no, and case fmt.Stringer, case error or a case of a cell's interface is not taken.
// Where such an assertion or case names an interface each of whose methods, by name and
// signature, some type of the session has (declared, through an alias of the type too, or
// promoted from an embedded field), or a pointer to it, or a struct type written in the cell
// or in the session's type declarations (a local type, an unnamed struct type) gets from an
// embedded field, the rewrite check-interface-assertions fails the cell: assert to the
// session's types themselves (a type switch with a case for each), or call the method on a
// variable of the value's own type. It takes all those methods together, whichever types have
// them, as one value's type may combine several (struct{ S; E }). A method whose signature it
// cannot resolve (a method of a generic type, one with a parameter of an interface type of the
// session) counts whatever its signature, and an interface it cannot resolve counts once the
// session's types have methods. It fails such a cell also where the value is of a compiled
// type, which the interpreter answers right, as it cannot tell. It does not see a struct type
// written in a function or a variable of an earlier cell: a value of a local type or of an
// unnamed struct type made there that embeds a compiled type with the interface's methods
// (struct{ time.Duration; n int } for fmt.Stringer) answers no without a word where Go answers
// yes; declare the type at the top of a cell. A cell's method of another signature than fmt's
// (a String(n int) string, a Format(layout string) string) counts for no fmt.Stringer or
// fmt.Formatter, and fmt does not call it. The interpreter answers an assertion to the empty interface wrongly
// for every value (v, ok := x.(any) gives nil, false; x.(any) panics), so the rewrite assert-any
// replaces both forms (any or interface{}) by calls that give Go's answers: x and whether x is
// not nil, a nil interface of a cell's type included. A case any of a type switch is left, as
// the interpreter answers it as Go does.
//
// The interpreter stores a value of a cell's type with methods, made by a composite literal or
// returned by a call, into an element of a slice, an array or a map, a field or a pointer's
// target of an interface type as a record that refers to the literal's or the result's
// storage, which the statement's next run reuses: in a loop every element would hold the last
// value, and a store into an element of a cell's interface type (ss[i] = P{i} with ss of
// type []S) fails with an error of reflect. The rewrite copy-stores evaluates such a value
// into a temporary first ({ _gosbiT := P{i}; xs[i] = _gosbiT }), which the interpreter
// copies. It leaves a store whose left side calls a function or receives (xs[f()] = P{i}), a
// store of several values (a[i], b[i] = P{i}, P{j}, which fails the cell) and one in a for
// loop's post statement or an if's or a switch's init statement: there put the value in a
// variable first (v := P{i}; xs[i] = v).
//
// A value of a cell's type that becomes a compiled interface with methods (error,
// fmt.Stringer) reaches it in a wrapper whose methods take their receiver from the expression
// the wrapper was made from, evaluated again when a method runs, in the frame that made the
// wrapper: in a loop every element of es (append(es, E{i}), es[i] = v, append(es, &E{i}))
// called Error on the last value, and var e error = x followed x's later changes. A value
// that a function returns as the interface is right, as each call has its own frame, so the
// rewrite fresh-wrappers sends such a value through a function literal
// (func(_gosbiFresh E) error { return _gosbiFresh }(E{i})) where the cell shows both its
// type and the interface it becomes: an argument of append, of a conversion to error or of a
// function of the session, an assignment, a var declaration, an element or field of a
// composite literal, a channel send. This also makes var e error = E{7} and error(E{7}) work
// as in Go (the interpreter held the bare value, and a call of Error failed). Left: a value
// whose type or target the cell does not show (a method's result, an argument of a method or
// of a compiled function) still keeps the last value in a loop: put it through a function
// that returns error (func asErr(e E) error { return e }). Errors made by compiled code
// (fmt.Errorf) were never affected.
// The rewrite leaves a value where a name its literal would write (error, the value's type,
// an interface's package) is declared in the same function or statement, as a variable or
// parameter may hide it there: such a value keeps the last one in a loop too.
//
// The same wrapper keeps, of a value of a cell's struct type, only its first field where
// compiled code looks (a pointer it keeps whole), and == compares the wrappers: var a error =
// E{2}; a == E{2} was false, and two stored errors compared panicked "comparing uncomparable
// type". The rewrite compare-interfaces sends each == and != with an operand of a compiled
// interface type with methods (and not nil) to a helper, and so a switch's cases on such a tag:
// it answers as Go where the operands show the answer (no value of a cell's type, pointers of a
// cell's type, a value of a cell's type against one of a compiled type, which is false) and
// otherwise fails the cell saying why: compare values of a cell's struct or named type in
// variables of their own type, or store pointers. Comparisons with nil are left as they are.
//
// A for loop whose init statement declares its variables (for i := 0; cond; post { body })
// gets them from the interpreter otherwise than from Go, which gives each iteration variables
// of its own, each starting with the value the last one ended with. Where the loop has a
// condition and a post statement, the interpreter gives the body a copy of the first
// variable, made at the start of each iteration from a variable that the condition and the
// post statement use, and never copies it back: the body's i++, i += 3, i = 7, a change
// through &i or a closure were lost, so the loop ran another number of times (a parser that
// skips a character with i++ read every one; for i := 0; i < 3; k++ { i++ } never ended), and
// a body that declares i again failed to compile. Every other variable of such a loop, and
// every variable of a loop without a condition or a post statement, is one variable for the
// whole loop, so closures capturing it saw its last value. The rewrite loop-vars declares the
// variables in a block around a loop the interpreter gets wrong ({ i := 0; for ; cond; post
// { body } }), which is the same loop where nothing captures them; where a closure or an
// address captures them it gives each iteration its own variables and copies them back at the
// end of the body and before each continue. It fails a cell whose loop it cannot mend, saying
// how to write it: a closure in the condition or post statement capturing a variable, a goto
// to the label of such a loop. A loop that declares its variables before (for i = 0; …) and a
// range loop were right, and stay as written. Left: a method value with a pointer receiver of
// a loop variable (gs = append(gs, c.Get)) is not taken for a capture, so it sees the
// variable's last value.
//
// The interpreter runs neither the init statement nor the tag of a switch without clauses
// (switch x = 5; {}, switch f() {}); the rewrite empty-switch runs them as a block
// ({ x = 5; _ = f() }), as Go does.
//
// A function value taken from a field of a cell's struct type (s.f, p.in.f, ss[i].f, and a
// variable that copies one, fv := s.f) has, for the interpreter, a reflect function type.
// Called as an operand of a return statement, such a call stored its results straight into
// the function's results, and the return statement, compiled for results kept in a temporary,
// then copied that untouched temporary over them: func r(s S) (int, []int) { return 1, s.f(x) }
// returned 1 and nil, without a word; so did a function of one result of another type than the
// call's (func r(s S) any { return s.n() } returned 0), and return s.two() where a result is
// converted (to an interface). A call in parentheses is evaluated like any other operand, so
// the rewrite parenthesize-returns puts in parentheses each operand of a return statement that
// is a call of anything but a name that is no variable, a package's function or a function
// literal (return 1, (s.f(x))), and evaluates a lone call of several results into temporaries
// first ({ _gosbiR1r0, _gosbiR1r1 := s.two(); return _gosbiR1r0, _gosbiR1r1 }), which is the
// same in Go. The values are assigned to the same results, in the same order, with the same
// conversions. Still wrong: a nil pointer of a cell type returned through such a call into an
// error result (func c(g G) error { return g.mk() }, g.mk returning a nil *E) comes back as a
// nil error, where Go's is not nil; the interpreter panicked there before the rewrite and gives
// the same wrong nil for return mk0() with mk0 a declared function. A return statement of the
// temporaries' form that does not compile names the temporaries or an assignment in its
// message (return s.n() in a function of two results: "assignment mismatch: 2 variables but
// the call returns 1 value"), where Go says there are not enough return values.
//
// The interpreter's defer statement keeps the storage of the call's operands (a variable's
// slot in the function's frame, the slot of an expression's result) and reads it when the
// function returns, where Go evaluates them at the defer statement: x := 1; defer f(x); x = 5
// called f(5), and defer f(i+1) in a loop called f with the last iteration's value each time;
// the same held for fields and elements (defer f(s.x, xs[i])), compiled functions (defer
// fmt.Println(x)) and the receiver (c := C{1}; defer c.M(); c.v = 2 gave M its later c), and
// defer f(xs...) failed with an error of reflect. A variable defined by := in a block gets new
// storage each time the block runs, so the rewrite eval-defers evaluates the operands inside
// functions into such variables first, in Go's order ({ _gosbiD1a0 := x; defer
// f(_gosbiD1a0) }), and the function value too where it is a variable (fn of defer fn()). It
// leaves constants in the call (their type is the parameter's), a defer statement whose only
// argument is a call of several results, and the receiver of a method (defer obj.M(x), defer
// mu.Unlock()): the receiver is still read when the function returns, even a variable that
// := defines in a loop's body (c := C{i}; defer c.M() calls M on the last c each time), so
// pass the receiver as an argument (defer func(c C) { c.M() }(c)). A function literal without
// arguments (defer func() { … }()) reads its variables when it runs, as in Go. A deferred call
// with an operand that the session passes through its printing helpers (a value of a cell's
// type, or an interface that may hold one, given to fmt) is left as written too, as a
// temporary of the helper's result would reach fmt as the interpreter's record of the value:
// in a loop such a call sees the last value (copy it into a variable of its own type first). A
// deferred function literal and a deferred method value in a loop see the last value as well
// (defer func() { fmt.Print(i) }() prints 2 2 2 for i from 0 to 2; pass i as an argument:
// defer func(i int) { fmt.Print(i) }(i)); a spread into a compiled variadic (defer
// fmt.Println(xs...)) prints the slice as one operand. Still failing,
// with or without the rewrite: defer f(xs...) fails with "reflect: cannot use []int as type
// int in Call" (write defer func(v []int) { f(v...) }(xs)). A deferred call that called a
// function literal made in the same function (fn := func() {…}; defer fn(), or fn() inside a
// deferred literal, or defer run(func() {…})) never returned: the interpreter runs deferred
// calls holding a lock of the function's frame, which such a literal takes when it returns.
// The rewrite detach-closures makes each function literal of a function with a defer statement
// in a frame of its own (fn := func() func() { return func() {…} }()); recover in a literal
// deferred through a variable still recovers nothing (Go's recovers). Go statements had the argument fault
// too; recover-goroutines evaluates their operands where the go statement stands. Go allows no
// defer statement outside a function; a cell stands where the body of func main would, so a
// defer statement of a cell's top level (in a block or loop of it too) evaluates its operands
// where it stands and its call runs once, when the cell's Go code ends (after a panic too),
// the last deferred first (the rewrite cell-defers; the interpreter ran it at the end of its
// own statement and again at the end of every later cell). An interrupted cell runs none of
// them and says so on standard error; recover in such a call returns nil.
//
// # Speed
//
// Interpreted code runs 100–400 times slower than compiled Go (a loop of 10⁷ float additions
// takes about 1.7 s). Calls into compiled packages (gonum, sbi, viz) run at full speed, so
// keep loops inside library calls: work on whole vectors and matrices (floats.Add, mat.Dense
// methods), and write simulators that handle a batch per call. A simulator written in a cell
// can still be handed to the library, which runs it on all cores.
//
// In a session with a struct type that has fields and methods (declared, or promoted from an
// embedded field: an interface, a type of the session or a compiled type), each type assertion
// or type switch to such a type (x.(MyErr)) first passes its operand through an interpreted
// generic call and a reflect check (the rewrite guard-assertions), a few microseconds, even
// when the operand is a variable of type any or of an interface of the cell: such a variable
// may hold the wrapper of a compiled interface (var a any = mk(), mk returning an error), so
// the check cannot be left out. Keep such assertions out of hot loops, or call a method
// instead.
//
// # What the interpreter lacks
//
// Range over functions and the iter package, the sorting functions of package slices (use
// package sort), generic types whose fields share their type parameters' names, min and max
// of untyped float constants (write max(a, b) with typed values), and inferring the type of
// a top-level variable whose value indexes a string or a compiled package's slice, array or
// map (write var p string = q[1]).
//
// # Goroutines
//
// A panic in a goroutine that a go statement of a cell started (in the cell, or in a function
// or function literal of the session) ends that goroutine only: the rewrite
// recover-goroutines runs the call under a deferred recover, and the session writes "panic in
// a goroutine started by cell [N] line L: value" on its standard error, which in a notebook
// shows under the cell that runs when it happens, or the last cell that ran. The function
// value and the arguments are evaluated where the go statement stands, as in Go. A go
// statement whose sole argument is a call that may give several values (a function of two
// results, a method call, a function whose type the rewrite cannot tell: go f(v.g())) is left
// as written, so that Go's order holds, and a panic of its goroutine is not recovered: pass
// the call's result through a variable (n := v.g(); go f(n)). Not covered either: a goroutine that compiled code starts (the library's goroutines do not panic), and
// the runtime's fatal errors, which no recover stops (concurrent map writes, a stack
// overflow, runaway recursion, out of memory): they end the worker process, and the kernel
// starts a fresh one and says the state was lost.
//
// # Why this package is not internal
//
// An extended worker (package extend) is a program generated in another module that imports
// interp, extend and stdlib, so these three stay public; the host's other parts (the kernel's
// front process, the notebook runner, the process seam) live under internal/.
package interp
