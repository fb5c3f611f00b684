package interp

import (
	"go/scanner"
	"go/token"
	"reflect"
)

// cellToken is a token of a cell and its text.
type cellToken struct {
	t   token.Token
	lit string
}

// cellVarType returns the type of x, a variable that code (the part of a cell above the
// cursor, not yet run) defines, when its definition says it without running anything:
// "x := pkg.F(...)" and "a, x := pkg.F(...)" (the result of a compiled function),
// "x := v.M(...)" (a method of a session variable), "x := pkg.T{...}" or "&pkg.T{...}", and
// "var x pkg.T" (and "var a, x pkg.T"); nil for another definition. defined reports whether
// code defines x in a block still open at its end (a definition in the header of for, if or
// switch belongs to the block that follows); the innermost, last definition counts.
func (s *Session) cellVarType(code, x string) (t reflect.Type, defined bool) {
	fset := token.NewFileSet()
	var sc scanner.Scanner
	sc.Init(fset.AddFile("", -1, len(code)), []byte(code), func(token.Position, string) {}, 0)
	var toks []cellToken
	for {
		_, t, lit := sc.Scan()
		if t == token.EOF {
			break
		}
		toks = append(toks, cellToken{t, lit})
	}
	blocks := []cellDef{{}} // the definition of x in each open block, the cell's first
	var header *cellDef     // a definition in the header of for, if or switch
	inHeader := false
	for i := 0; i < len(toks); i++ {
		switch toks[i].t {
		case token.FOR, token.IF, token.SWITCH:
			inHeader, header = true, nil
		case token.LBRACE:
			b := cellDef{}
			if header != nil {
				b = *header
			}
			blocks, inHeader, header = append(blocks, b), false, nil
		case token.RBRACE:
			if len(blocks) > 1 {
				blocks = blocks[:len(blocks)-1]
			}
		}
		if toks[i].t != token.IDENT || toks[i].lit != x {
			continue
		}
		if d, ok := s.definitionAt(toks, i); ok {
			if inHeader {
				header = &d
			} else {
				blocks[len(blocks)-1] = d
			}
		}
	}
	for i := len(blocks) - 1; i >= 0; i-- {
		if blocks[i].defined {
			return blocks[i].t, true
		}
	}
	return nil, false
}

// cellDef is a definition of a variable in a cell: whether there is one, and its type when
// the definition shows it.
type cellDef struct {
	t       reflect.Type
	defined bool
}

// definitionAt reads the definition whose defined name is toks[i]: ok is false when toks[i]
// is not a name that ":=" or "var" defines.
func (s *Session) definitionAt(toks []cellToken, i int) (d cellDef, ok bool) {
	// "a, x, b :=": x is result index of the definition
	index, j := 0, i
	for j >= 2 && toks[j-1].t == token.COMMA && toks[j-2].t == token.IDENT {
		index, j = index+1, j-2
	}
	k := i + 1
	for k+1 < len(toks) && toks[k].t == token.COMMA && toks[k+1].t == token.IDENT {
		k += 2
	}
	switch {
	case k < len(toks) && toks[k].t == token.DEFINE:
		return cellDef{s.exprType(toks[k+1:], index), true}, true
	case j > 0 && toks[j-1].t == token.VAR:
		d := cellDef{defined: true}
		if k+2 < len(toks) && toks[k].t == token.IDENT && toks[k+1].t == token.PERIOD && toks[k+2].t == token.IDENT {
			if path := s.packagePath(toks[k].lit); path != "" { // "var a, x pkg.T"
				d.t, _ = typeSymbol(path, toks[k+2].lit)
			}
		}
		return d, true
	}
	return cellDef{}, false
}

// exprType returns the type of result index of the expression that the tokens open with:
// pkg.F( and v.M( (a call), pkg.T{ and &pkg.T{ (a composite literal); nil for another.
func (s *Session) exprType(toks []cellToken, index int) reflect.Type {
	ptr := len(toks) > 0 && toks[0].t == token.AND
	if ptr {
		toks = toks[1:]
	}
	if len(toks) < 4 || toks[0].t != token.IDENT || toks[1].t != token.PERIOD || toks[2].t != token.IDENT {
		return nil
	}
	x, name, open := toks[0].lit, toks[2].lit, toks[3].t
	if path := s.packagePath(x); path != "" {
		if t, ok := typeSymbol(path, name); ok && open == token.LBRACE && index == 0 {
			if ptr {
				return reflect.PointerTo(t)
			}
			return t
		}
		if f, ok := packageSymbols(path)[name]; ok && !ptr && open == token.LPAREN && f.Kind() == reflect.Func {
			return result(f.Type(), index)
		}
		return nil
	}
	if v, ok := s.global(x); ok && !ptr && open == token.LPAREN {
		if m, ok := v.Type().MethodByName(name); ok {
			return result(m.Type, index)
		}
		if m, ok := reflect.PointerTo(v.Type()).MethodByName(name); ok { // a variable is addressable
			return result(m.Type, index)
		}
	}
	return nil
}

// result returns the type of result index of function type ft, or nil.
func result(ft reflect.Type, index int) reflect.Type {
	if index >= ft.NumOut() {
		return nil
	}
	return ft.Out(index)
}
