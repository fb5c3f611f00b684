package interp_test

import (
	"context"
	"fmt"
	"os"

	"github.com/gosbi/gosbi/display"
	"github.com/gosbi/gosbi/interp"
)

func ExampleSession_Execute() {
	s, err := interp.NewSession(interp.Config{Stdout: os.Stdout, Stderr: os.Stdout})
	if err != nil {
		panic(err)
	}
	cells := []string{
		"import \"strings\"\nfunc shout(s string) string { return strings.ToUpper(s) }",
		"words := strings.Fields(\"simulation based inference\")\nlen(words)",
		"shout(words[0])",
		"shout(undefinedName)",
	}
	for i, code := range cells {
		res := s.Execute(context.Background(), code, i+1)
		switch {
		case res.Err != nil:
			fmt.Println("error:", res.Err.Value)
		case res.Data != nil:
			fmt.Printf("Out[%d]: %s\n", i+1, display.PlainText(res.Data))
		}
	}
	// Output:
	// Out[2]: 3
	// Out[3]: "SIMULATION"
	// error: cell [4] line 1:7: undefined: undefinedName
}

func ExampleSession_Complete() {
	s, err := interp.NewSession(interp.Config{})
	if err != nil {
		panic(err)
	}
	matches, start, end := s.Complete("x := math.Sq", 12)
	fmt.Println(matches, start, end)
	// Output:
	// [Sqrt Sqrt2 SqrtE SqrtPhi SqrtPi] 10 12
}

func ExampleIsComplete() {
	for _, code := range []string{"x := 1", "for i := range 3 {", "x := )"} {
		status, indent := interp.IsComplete(code)
		fmt.Printf("%-20q %s %q\n", code, status, indent)
	}
	// Output:
	// "x := 1"             complete ""
	// "for i := range 3 {" incomplete "    "
	// "x := )"             invalid ""
}
