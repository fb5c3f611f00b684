package rewrite

import "go/ast"

// renameMain works around the interpreter's treatment of a function named main: it runs it
// after every evaluation that follows its definition, so a cell that declares func main would
// run it again with every later cell. The function is kept under another name, which the
// session calls where a program would run main (a script's end):
//
//	func main() {…}   →   func _main() {…}
//
// Upstream: no upstream issue found (it is how the interpreter runs programs, not a fault it
// reports).
var renameMain = Pass{
	Name:  "rename-main",
	Issue: "no upstream issue found",
	Rewrite: func(_ Env, u Unit) (string, error) {
		if u.Kind != Decl {
			return u.Text, nil
		}
		p, err := parse(u)
		if err != nil {
			return u.Text, nil
		}
		fd, ok := p.root.(*ast.FuncDecl)
		if !ok || fd.Recv != nil || fd.Name.Name != "main" {
			return u.Text, nil
		}
		return p.Text[:p.offset(fd.Name.Pos())] + MainName + p.position(fd.Name.End()) + p.Text[p.offset(fd.Name.End()):], nil
	},
}

// MainName is the name under which rename-main keeps a function main.
const MainName = "_main"
