package nbtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"regexp"
	"sort"
	"strings"
)

// WriteHTML writes nb as a standalone HTML page: no external files or scripts, images inline
// (PNG and JPEG as base64 data URLs, SVG as markup).
func WriteHTML(path string, nb *Notebook, title string) error {
	if err := os.WriteFile(path, RenderHTML(nb, title), 0o644); err != nil {
		return fmt.Errorf("nbtest: write HTML: %w", err)
	}
	return nil
}

const pageStyle = `body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1b1f23}
.cell{margin:1rem 0}.prompt{color:#6a737d;font-family:monospace;font-size:.85rem}
pre{background:#f6f8fa;padding:.6rem .8rem;overflow-x:auto;border-radius:4px;margin:.3rem 0;font-size:.9rem}
pre.input{border-left:3px solid #00add8}pre.stderr{background:#fff5e6}pre.error{background:#ffeef0;color:#86181d}
.output img,.output svg{max-width:100%;height:auto}code{background:#f6f8fa;padding:0 .2rem;border-radius:3px}
table{border-collapse:collapse}td,th{border:1px solid #d0d7de;padding:.2rem .5rem}`

// RenderHTML returns the HTML page of nb.
func RenderHTML(nb *Notebook, title string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%s</title>\n<style>%s</style></head>\n<body>\n", html.EscapeString(title), pageStyle)
	for _, c := range nb.Cells {
		b.WriteString(`<div class="cell">`)
		switch c.CellType {
		case "markdown":
			b.WriteString(`<div class="markdown">` + Markdown(c.Source) + `</div>`)
		case "code":
			n := " "
			if c.ExecutionCount != nil {
				n = fmt.Sprint(*c.ExecutionCount)
			}
			fmt.Fprintf(&b, "<div class=\"prompt\">In [%s]:</div><pre class=\"input\"><code>%s</code></pre>\n", n, html.EscapeString(c.Source))
			for _, o := range c.Outputs {
				b.WriteString(renderOutput(o))
			}
		default:
			fmt.Fprintf(&b, "<pre>%s</pre>", html.EscapeString(c.Source))
		}
		b.WriteString("</div>\n")
	}
	b.WriteString("</body></html>\n")
	return b.Bytes()
}

func renderOutput(o *Output) string {
	switch o.OutputType {
	case "stream":
		return fmt.Sprintf("<pre class=\"output %s\">%s</pre>\n", html.EscapeString(o.Name), html.EscapeString(StripANSI(o.Text)))
	case "error":
		tb := strings.Join(o.Traceback, "\n")
		if tb == "" {
			tb = o.Ename + ": " + o.Evalue
		}
		return fmt.Sprintf("<pre class=\"output error\">%s</pre>\n", html.EscapeString(StripANSI(tb)))
	case "display_data", "execute_result":
		prompt := ""
		if o.OutputType == "execute_result" && o.ExecutionCount != nil {
			prompt = fmt.Sprintf("<div class=\"prompt\">Out[%d]:</div>", *o.ExecutionCount)
		}
		return prompt + `<div class="output">` + renderData(o.Data) + "</div>\n"
	}
	return ""
}

// renderData shows the richest representation of a MIME bundle.
func renderData(data map[string]any) string {
	str := func(mime string) (string, bool) {
		s, ok := data[mime].(string)
		return s, ok
	}
	if s, ok := str("image/svg+xml"); ok {
		return s
	}
	for _, mime := range []string{"image/png", "image/jpeg", "image/gif"} {
		if s, ok := str(mime); ok {
			return fmt.Sprintf(`<img src="data:%s;base64,%s" alt="figure">`, mime, strings.TrimSpace(s))
		}
	}
	if s, ok := str("text/html"); ok {
		return s
	}
	if s, ok := str("text/markdown"); ok {
		return Markdown(s)
	}
	if s, ok := str("text/latex"); ok {
		return "<pre>" + html.EscapeString(s) + "</pre>"
	}
	for _, mime := range sortedKeys(data) {
		if strings.HasSuffix(mime, "json") {
			j, _ := json.MarshalIndent(data[mime], "", "  ")
			return "<pre>" + html.EscapeString(string(j)) + "</pre>"
		}
	}
	if s, ok := str("text/plain"); ok {
		return "<pre>" + html.EscapeString(StripANSI(s)) + "</pre>"
	}
	return ""
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

var (
	mdHeading = regexp.MustCompile(`^(#{1,6})\s+(.*)$`)
	mdBullet  = regexp.MustCompile(`^\s*[-*+]\s+(.*)$`)
	mdNumber  = regexp.MustCompile(`^\s*\d+[.)]\s+(.*)$`)
	mdCode    = regexp.MustCompile("`([^`]+)`")
	mdBold    = regexp.MustCompile(`\*\*([^*]+)\*\*`)
	mdItalic  = regexp.MustCompile(`(^|[^*])\*([^*\s][^*]*)\*`)
	mdLink    = regexp.MustCompile(`!?\[([^\]]*)\]\(([^)\s]+)\)`)
)

// Markdown renders the common subset of Markdown used in notebooks: headings, paragraphs,
// bullet and numbered lists, fenced code, block quotes, inline code, bold, italic, links and
// images. Math ($…$) is kept as text. Anything else is shown as plain text, escaped.
func Markdown(src string) string {
	var b strings.Builder
	var para []string
	list := ""
	flush := func() {
		if len(para) > 0 {
			b.WriteString("<p>" + inline(strings.Join(para, " ")) + "</p>\n")
			para = nil
		}
	}
	closeList := func() {
		if list != "" {
			b.WriteString("</" + list + ">\n")
			list = ""
		}
	}
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(strings.TrimSpace(l), "```"):
			flush()
			closeList()
			var code []string
			for i++; i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), "```"); i++ {
				code = append(code, lines[i])
			}
			b.WriteString("<pre><code>" + html.EscapeString(strings.Join(code, "\n")) + "</code></pre>\n")
		case strings.TrimSpace(l) == "":
			flush()
			closeList()
		case mdHeading.MatchString(l):
			flush()
			closeList()
			m := mdHeading.FindStringSubmatch(l)
			fmt.Fprintf(&b, "<h%d>%s</h%d>\n", len(m[1]), inline(m[2]), len(m[1]))
		case mdBullet.MatchString(l) || mdNumber.MatchString(l):
			flush()
			tag, re := "ul", mdBullet
			if !mdBullet.MatchString(l) {
				tag, re = "ol", mdNumber
			}
			if list != tag {
				closeList()
				b.WriteString("<" + tag + ">\n")
				list = tag
			}
			b.WriteString("<li>" + inline(re.FindStringSubmatch(l)[1]) + "</li>\n")
		case strings.HasPrefix(l, ">"):
			flush()
			closeList()
			b.WriteString("<blockquote>" + inline(strings.TrimSpace(strings.TrimPrefix(l, ">"))) + "</blockquote>\n")
		default:
			if list != "" && strings.HasPrefix(l, "  ") {
				// A continuation line of a list item.
				b.WriteString(inline(strings.TrimSpace(l)) + "\n")
				continue
			}
			closeList()
			para = append(para, strings.TrimSpace(l))
		}
	}
	flush()
	closeList()
	return b.String()
}

// inline renders code spans, links, images, bold and italic in escaped text.
func inline(s string) string {
	var b strings.Builder
	// Code spans are cut out first so that their content is not formatted.
	last := 0
	for _, m := range mdCode.FindAllStringSubmatchIndex(s, -1) {
		b.WriteString(format(s[last:m[0]]))
		b.WriteString("<code>" + html.EscapeString(s[m[2]:m[3]]) + "</code>")
		last = m[1]
	}
	b.WriteString(format(s[last:]))
	return b.String()
}

func format(s string) string {
	s = html.EscapeString(s)
	s = mdLink.ReplaceAllStringFunc(s, func(m string) string {
		p := mdLink.FindStringSubmatch(m)
		if strings.HasPrefix(m, "!") {
			return fmt.Sprintf(`<img src="%s" alt="%s">`, p[2], p[1])
		}
		return fmt.Sprintf(`<a href="%s">%s</a>`, p[2], p[1])
	})
	s = mdBold.ReplaceAllString(s, "<strong>$1</strong>")
	s = mdItalic.ReplaceAllString(s, "$1<em>$2</em>")
	return s
}
