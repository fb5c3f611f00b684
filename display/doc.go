// Package display shows rich output in a notebook: images, HTML, Markdown, LaTeX, JSON and
// text, displays that update in place, and notebook assertions (Check).
//
// In a gosbi notebook cell:
//
//	display.Markdown("# Results")
//	display.PNG(pngBytes)
//	d := display.New()
//	for i := range 10 { d.Text(fmt.Sprint(i)) } // one output, updated in place
//	display.Check(len(xs) == 10, "ten samples")
//
// A value whose type has a method MIMEBundle() map[string]any is shown richly when it is the
// last expression of a cell; Render gives the bundle of any value (matrices, numeric slices
// and errors get readable defaults).
//
// Outputs go to the display sink of the host (runenv.SetDisplay): the notebook worker sends
// them to the front, the terminal prints their text. Without one (a plain Go program, a test)
// their text goes to standard output. The package knows nothing of the kernel.
package display
