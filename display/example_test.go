package display_test

import (
	"fmt"
	"sort"

	"github.com/gosbi/gosbi/display"
	"github.com/gosbi/gosbi/runenv"
)

// Without a notebook the display calls print their text form on standard output: HTML and
// Markdown as their source, JSON indented. In a notebook each is one rich output of its type.
func ExampleHTML() {
	display.HTML("<b>coverage</b> 0.91")
	display.Markdown("**coverage** 0.91")
	display.JSON(map[string]float64{"coverage": 0.91})
	display.Text("coverage 0.91")
	// Output:
	// <b>coverage</b> 0.91
	// **coverage** 0.91
	// {
	//   "coverage": 0.91
	// }
	// coverage 0.91
}

// summary is a result type that shows itself richly: a notebook picks the richest MIME type it
// can render, a terminal the text/plain entry.
type summary struct{ level, coverage float64 }

func (s summary) MIMEBundle() map[string]any {
	return map[string]any{
		"text/plain": fmt.Sprintf("coverage %.2f at level %.2f", s.coverage, s.level),
		"text/html":  fmt.Sprintf("<table><tr><td>%.2f</td><td>%.2f</td></tr></table>", s.level, s.coverage),
	}
}

// In a notebook the worker's display sink receives the MIME bundle of each output; here a sink
// records what it would receive.
func ExampleShowBundle() {
	var outputs []runenv.Output
	runenv.SetDisplay(func(o runenv.Output) { outputs = append(outputs, o) })
	defer runenv.SetDisplay(nil)

	display.ShowBundle(summary{0.9, 0.91})
	for _, o := range outputs {
		var types []string
		for k := range o.Data {
			types = append(types, k)
		}
		sort.Strings(types)
		fmt.Println(types, o.Data["text/plain"])
	}
	// Output: [text/html text/plain] coverage 0.91 at level 0.90
}
