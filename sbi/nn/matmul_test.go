package nn

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/gosbi/gosbi/sbi/internal/cputime"
)

// documentedPath restates the rule of matmul.go, as the README's Building section gives it.
func documentedPath(tA, tB bool, m int) matmulPath {
	switch {
	case ownWidth() == 0 && openblasLinked:
		return pathOpenBLAS
	case ownWidth() == 0:
		return pathGonum
	case !openblasLinked || ownWidth() == 16:
		return pathOwn
	case !tA && !tB && m >= ownRowsMin:
		return pathOwn
	}
	return pathOpenBLAS
}

// TestBackendReportsWhatRuns runs products of every class (training forward and backward
// products, tall forward products of evaluation, with and without bias and fused ReLU,
// through Linear and MatMul on a tape) with a hook that records which implementation each
// took, on every own kernel this CPU has, and checks that each took the path of the
// documented rule, and that Backend names every implementation that ran and no other.
func TestBackendReportsWhatRuns(t *testing.T) {
	for _, w := range kernelWidths() {
		restore := useKernelWidth(w)
		checkBackend(t, w)
		restore()
	}
}

func checkBackend(t *testing.T, width int) {
	var took []matmulPath
	matmulRan = func(p matmulPath) { took = append(took, p) }
	defer func() { matmulRan = nil }()
	rng := rand.New(rand.NewPCG(1, 2))
	fill := func(n int) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = rng.NormFloat64()
		}
		return s
	}
	seen := map[matmulPath]bool{}
	for _, c := range []struct {
		what   string
		tA, tB bool
		m, n   int
		k      int
	}{
		{"product", false, false, 128, 64, 64},
		{"product", false, false, ownRowsMin - 1, 64, 64},
		{"product", false, false, ownRowsMin, 64, 64},
		{"product", false, false, 512, 46, 64},
		{"product", false, true, 128, 64, 46},
		{"product", false, true, 512, 64, 64},
		{"product", true, false, 64, 46, 128},
		{"product", true, false, 512, 64, 600},
		{"bias", false, false, 128, 64, 4},
		{"bias", false, false, 512, 64, 4},
		{"relu", false, false, 128, 64, 64},
		{"relu", false, false, 512, 64, 64},
	} {
		lda, ldb := c.k, c.n
		if c.tA {
			lda = c.m
		}
		if c.tB {
			ldb = c.k
		}
		a, b, bias, out := fill(c.m*c.k), fill(c.k*c.n), fill(c.n), make([]float64, c.m*c.n)
		took = took[:0]
		switch c.what {
		case "product":
			gemm(c.tA, c.tB, c.m, c.n, c.k, 1, a, lda, b, ldb, 0, out, c.n)
		case "bias":
			gemmBias(c.m, c.n, c.k, a, lda, b, ldb, bias, out, c.n)
		case "relu":
			gemmBiasAct(c.m, c.n, c.k, a, lda, b, ldb, bias, out, fnReLU)
		}
		want := documentedPath(c.tA, c.tB, c.m)
		if len(took) != 1 || took[0] != want {
			t.Errorf("kernel width %d: %s %v×%v×%v (tA=%v tB=%v) took %v, the rule says %v", width, c.what, c.m, c.n, c.k, c.tA, c.tB, names(took), want.name())
		}
		for _, p := range took {
			seen[p] = true
		}
	}
	// a training step's products on a tape go through the same function
	for _, rows := range []int{128, 512} {
		tp := NewTape()
		x := tp.Variable(rows, 4, fill(rows*4))
		w := tp.Variable(4, 8, fill(32))
		took = took[:0]
		tp.Backward(tp.Sum(tp.MatMul(x, w)))
		want := []matmulPath{documentedPath(false, false, rows), documentedPath(false, true, rows), documentedPath(true, false, 4)}
		if fmt.Sprint(names(took)) != fmt.Sprint(names(want)) {
			t.Errorf("kernel width %d: MatMul of %d rows and its backward pass took %v, the rule says %v", width, rows, names(took), names(want))
		}
		for _, p := range took {
			seen[p] = true
		}
	}
	report := Backend()
	for _, p := range []matmulPath{pathOwn, pathOpenBLAS, pathGonum} {
		if named := strings.Contains(report, p.name()); named != seen[p] {
			t.Errorf("kernel width %d: Backend() = %q; %s ran: %v, is named: %v", width, report, p.name(), seen[p], named)
		}
	}
	if every := strings.Contains(report, "for every product"); every != (len(seen) == 1) {
		t.Errorf("kernel width %d: Backend() = %q, but %d implementations ran", width, report, len(seen))
	}
}

func names(ps []matmulPath) []string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.name()
	}
	return s
}

// BenchmarkGEMMPaths times every implementation this build and CPU can run on the products
// of SBI networks: the forward (NN), input-gradient (NT) and weight-gradient (TN) products of
// a training step of 128 or 256 rows through layers of 4 to 64 units, and the tall forward
// products of batched evaluation (512 rows). It reports CPU time, the number to compare on a
// shared machine; matmul.go's rule is read off these numbers.
func BenchmarkGEMMPaths(b *testing.B) {
	paths := []matmulPath{blasPath()}
	if ownWidth() > 0 {
		paths = append([]matmulPath{pathOwn}, paths...)
	}
	shapes := []struct {
		tA, tB  bool
		m, n, k int
	}{
		{false, false, 128, 64, 64}, {false, false, 256, 64, 64}, {false, false, 128, 46, 64}, {false, false, 256, 64, 4},
		{false, true, 128, 64, 46}, {false, true, 256, 64, 64},
		{true, false, 64, 64, 128}, {true, false, 64, 64, 256}, {true, false, 64, 46, 128},
		{false, false, 512, 64, 64}, {false, false, 512, 46, 64}, {false, false, 512, 128, 128},
	}
	op := map[bool]string{false: "N", true: "T"}
	for _, s := range shapes {
		lda, ldb := s.k, s.n
		if s.tA {
			lda = s.m
		}
		if s.tB {
			ldb = s.k
		}
		rng := rand.New(rand.NewPCG(1, 1))
		a, bb, c := make([]float64, s.m*s.k), make([]float64, s.k*s.n), make([]float64, s.m*s.n)
		for i := range a {
			a[i] = rng.Float64()
		}
		for i := range bb {
			bb[i] = rng.Float64()
		}
		for _, p := range paths {
			name := map[matmulPath]string{pathOwn: "own", pathOpenBLAS: "openblas", pathGonum: "gonum"}[p]
			b.Run(fmt.Sprintf("%s%s_%dx%dx%d/%s", op[s.tA], op[s.tB], s.m, s.n, s.k, name), func(b *testing.B) {
				old := forcedPath
				forcedPath = p
				defer func() { forcedPath = old }()
				cputime.Report(b, func() { gemm(s.tA, s.tB, s.m, s.n, s.k, 1, a, lda, bb, ldb, 0, c, s.n) })
			})
		}
	}
}

// The paths' names are distinct, so that Backend's text identifies each.
func TestPathNamesDistinct(t *testing.T) {
	var ns []string
	for _, p := range []matmulPath{pathOwn, pathOpenBLAS, pathGonum} {
		ns = append(ns, p.name())
	}
	sort.Strings(ns)
	for i := 1; i < len(ns); i++ {
		if strings.Contains(ns[i], ns[i-1]) || strings.Contains(ns[i-1], ns[i]) {
			t.Errorf("path names %q and %q: one contains the other", ns[i-1], ns[i])
		}
	}
}
