// Command backend prints which implementation does the matrix products of package nn in this
// build on this CPU (nn.Backend). go run ./tools/benchmarks runs it in each build it measures,
// so that BENCHMARKS.md says what ran in each column.
package main

import (
	"fmt"

	"github.com/gosbi/gosbi/sbi/nn"
)

func main() { fmt.Println(nn.Backend()) }
