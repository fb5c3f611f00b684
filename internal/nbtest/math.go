package nbtest

import (
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// texMath is a goldmark extension that passes TeX math through Markdown untouched, as Jupyter
// does before MathJax typesets it: $…$ (inline) and $$…$$ (display, also over several lines
// of a paragraph) are kept as written, so that the _, *, \ and | inside are not read as
// emphasis, escapes or tables. A dollar is inline math only as pandoc reads it: the opening $
// is not followed by a space, the closing one is not preceded by a space nor followed by a
// digit, so that "$5 and $6" and "\$" stay text. No script renders the math in a standalone
// page: it shows as TeX, in a span of class "math".
type texMath struct{}

func (texMath) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(parser.WithInlineParsers(util.Prioritized(mathParser{}, 150)))
	m.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(mathRenderer{}, 150)))
}

// mathNode is math as written, its delimiters included.
type mathNode struct {
	ast.BaseInline
	tex []byte
}

var kindMath = ast.NewNodeKind("Math")

func (n *mathNode) Kind() ast.NodeKind { return kindMath }

func (n *mathNode) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{"TeX": string(n.tex)}, nil)
}

type mathParser struct{}

func (mathParser) Trigger() []byte { return []byte{'$'} }

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// Parse reads math that starts at the $ under the reader, or returns nil (the $ is text).
func (mathParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	line, _ := block.PeekLine()
	delim := 1
	if len(line) > 1 && line[1] == '$' {
		delim = 2
	}
	if len(line) <= delim || delim == 1 && isBlank(line[1]) {
		return nil
	}
	l, pos := block.Position()
	block.Advance(delim)
	tex := append([]byte(nil), line[:delim]...)
	for {
		line, _ := block.PeekLine()
		if line == nil {
			block.SetPosition(l, pos)
			return nil
		}
		for i := 0; i < len(line); i++ {
			switch {
			case line[i] == '\\':
				i++ // an escaped character, \$ among them, is part of the math
			case line[i] != '$':
			case delim == 2 && (i+1 >= len(line) || line[i+1] != '$'):
			case delim == 1 && (i == 0 || isBlank(line[i-1]) || i+1 < len(line) && line[i+1] >= '0' && line[i+1] <= '9'):
			default:
				tex = append(append(tex, line[:i]...), line[i:i+delim]...)
				block.Advance(i + delim)
				return &mathNode{tex: tex}
			}
		}
		tex = append(tex, line...)
		block.AdvanceLine()
	}
}

func (mathParser) CloseBlock(parent ast.Node, pc parser.Context) {}

type mathRenderer struct{}

func (mathRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(kindMath, func(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			w.WriteString(`<span class="math">`)
			w.Write(util.EscapeHTML(n.(*mathNode).tex))
			w.WriteString(`</span>`)
		}
		return ast.WalkSkipChildren, nil
	})
}
