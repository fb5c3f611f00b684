package simstore

import (
	"archive/zip"
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gosbi/gosbi/sbi/internal/npytest"
	"github.com/gosbi/gosbi/sbi/npy"
	"gonum.org/v1/gonum/mat"
)

// pairs returns rows [from, from+n) of a data set whose row i has θ = (i, −i) and
// x = (i, 2i, 3i): every row says which it is.
func pairs(from, n int) (theta, x *mat.Dense) {
	theta, x = mat.NewDense(n, 2, nil), mat.NewDense(n, 3, nil)
	for k := 0; k < n; k++ {
		i := float64(from + k)
		theta.SetRow(k, []float64{i, -i})
		x.SetRow(k, []float64{i, 2 * i, 3 * i})
	}
	return theta, x
}

// pass reads one pass of src and returns the ids of the rows in the order seen, checking that
// every row's θ and x agree and every batch but the last has size rows.
func pass(t *testing.T, src Source, size int, seed uint64) []int {
	t.Helper()
	it := src.Batches(size, seed)
	defer it.Close()
	var ids []int
	short := false
	for it.Next() {
		th, x := it.Batch()
		r, _ := th.Dims()
		if short {
			t.Fatalf("a batch of %d rows after a short one", r)
		}
		short = r < size
		for k := 0; k < r; k++ {
			i := th.At(k, 0)
			if th.At(k, 1) != -i || x.At(k, 0) != i || x.At(k, 2) != 3*i {
				t.Fatalf("row %d of a batch mixes pairs: θ %v, x %v", k, th.RawRowView(k), x.RawRowView(k))
			}
			ids = append(ids, int(i))
		}
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return ids
}

func TestAppendAndStream(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	s, err := Create(dir, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	sizes := []int{5, 17, 1, 40, 9}
	from := 0
	for _, n := range sizes {
		if err := s.Append(pairs(from, n)); err != nil {
			t.Fatal(err)
		}
		from += n
	}
	s2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s2.Len() != from || s2.Chunks() != len(sizes) || s.Len() != from {
		t.Fatalf("reopened store: %d pairs in %d chunks, want %d in %d", s2.Len(), s2.Chunks(), from, len(sizes))
	}
	a, b, c := pass(t, s2, 8, 1), pass(t, s2, 8, 1), pass(t, s2, 8, 2)
	seen := make([]int, from)
	for _, i := range a {
		seen[i]++
	}
	for i, k := range seen {
		if k != 1 {
			t.Fatalf("row %d seen %d times in a pass, want once", i, k)
		}
	}
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Error("the same seed gave two orders")
	}
	if fmt.Sprint(a) == fmt.Sprint(c) {
		t.Error("two seeds gave the same order")
	}
	// rows of different chunks are mixed within batches: the first batch holds rows of more
	// than one chunk (it would hold one chunk's rows only without the shuffle pool)
	chunkOf := func(i int) int {
		for k, lo := 0, 0; k < len(sizes); k++ {
			if lo += sizes[k]; i < lo {
				return k
			}
		}
		return -1
	}
	if chunks := map[int]bool{chunkOf(a[0]): true, chunkOf(a[1]): true, chunkOf(a[2]): true, chunkOf(a[3]): true}; len(chunks) < 2 {
		t.Errorf("the first batch comes from one chunk: %v", a[:8])
	}
	if _, err := Create(dir, 2, 4); err == nil || !strings.Contains(err.Error(), "not 2 and 4") {
		t.Errorf("Create with other widths: %v", err)
	}
	if err := s.Append(mat.NewDense(2, 2, nil), mat.NewDense(3, 3, nil)); err == nil {
		t.Error("Append of mismatched rows was accepted")
	}
}

// TestSplit checks that the parts cover the store, hold whole chunks, and that validation
// holds about the asked share; that seeds differ; and that a split leaving no chunk for
// training, or of one chunk, is refused.
func TestSplit(t *testing.T) {
	dir := t.TempDir()
	s, err := Create(dir, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	const chunks, rows = 40, 10
	for k := 0; k < chunks; k++ {
		writeNamed(t, dir, fmt.Sprintf("c%03d.npz", k), k*rows, rows)
	}
	if err := s.Refresh(); err != nil {
		t.Fatal(err)
	}
	splits := map[string]bool{}
	for seed := uint64(0); seed < 5; seed++ {
		tr, va, err := s.Split(0.2, seed)
		if err != nil {
			t.Fatal(err)
		}
		if n := va.Len(); tr.Len()+n != chunks*rows || n < rows || n > chunks*rows/2 {
			t.Fatalf("seed %d: split into %d and %d, want %d in all and about a fifth held out", seed, tr.Len(), n, chunks*rows)
		}
		trRows, vaRows := rowsOf(t, tr), rowsOf(t, va)
		for i := 0; i < chunks*rows; i++ {
			if trRows[i] == vaRows[i] {
				t.Fatalf("seed %d: row %d in training %v, in validation %v; want one part", seed, i, trRows[i], vaRows[i])
			}
			if vaRows[i] != vaRows[i-i%rows] {
				t.Fatalf("seed %d: chunk %d is divided between the parts", seed, i/rows)
			}
		}
		splits[fmt.Sprint(pass(t, va, chunks*rows, 0))] = true
	}
	if len(splits) < 2 {
		t.Error("five seeds held out the same chunks")
	}

	two := t.TempDir()
	s2, _ := Create(two, 2, 3)
	writeNamed(t, two, "a.npz", 0, 5)
	writeNamed(t, two, "b.npz", 5, 5)
	s2.Refresh()
	seed := uint64(0) // one whose draws are both below 0.9
	for splitDraw("a.npz", seed) >= 0.9 || splitDraw("b.npz", seed) >= 0.9 {
		seed++
	}
	if tr, va, err := s2.Split(0.9, seed); err == nil || !strings.Contains(err.Error(), "none is left for training") {
		t.Errorf("a split drawing every chunk for validation: %v (parts of %d and %d pairs), want an error", err, lenOfSource(tr), lenOfSource(va))
	}

	one, _ := Create(t.TempDir(), 2, 3)
	one.Append(pairs(0, 5))
	if _, _, err := one.Split(0.1, 1); err == nil {
		t.Error("a store of one chunk was split")
	}
}

func lenOfSource(s Source) int {
	if s == nil {
		return 0
	}
	return s.Len()
}

// TestSplitSmallShare checks the promise of Split's doc that validation gets at least one
// chunk: also when no chunk draws below the share, as for a share of the pairs that rounds to
// no pair at all.
func TestSplitSmallShare(t *testing.T) {
	for _, c := range []struct {
		name    string
		sizes   []int
		frac    float64
		wantVal int
	}{
		{"share of 0.1 pair", []int{5, 5}, 0.01, 5},
		{"share of 0.3 pair", []int{1, 1, 1}, 0.1, 1},
		{"share of 0.49 pair", []int{7, 7, 7, 7, 7, 7, 7}, 0.01, 7},
		{"share of 4 pairs in chunks of 10", []int{10, 10, 10, 10, 10, 10, 10, 10, 10, 10}, 0.04, 10},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			s, err := Create(dir, 2, 3)
			if err != nil {
				t.Fatal(err)
			}
			total := 0
			for k, n := range c.sizes {
				writeNamed(t, dir, fmt.Sprintf("c%03d.npz", k), total, n)
				total += n
			}
			if err := s.Refresh(); err != nil {
				t.Fatal(err)
			}
			tested := 0
			for seed := uint64(0); tested < 4; seed++ {
				forced := true // no chunk draws below the share: the seeds this case is about
				for k := range c.sizes {
					forced = forced && splitDraw(fmt.Sprintf("c%03d.npz", k), seed) >= c.frac
				}
				if !forced {
					continue
				}
				tested++
				tr, va, err := s.Split(c.frac, seed)
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				if va.Len() != c.wantVal || tr.Len() != total-c.wantVal {
					t.Fatalf("seed %d: split into %d and %d, want %d and %d", seed, tr.Len(), va.Len(), total-c.wantVal, c.wantVal)
				}
				if got := len(pass(t, va, 3, 1)); got != c.wantVal {
					t.Fatalf("seed %d: validation streams %d pairs, want %d", seed, got, c.wantVal)
				}
			}
		})
	}
}

// TestPoolBounded streams a store of three windows' worth of rows and checks that the shuffle
// pool never grew beyond Window rows plus one chunk.
func TestPoolBounded(t *testing.T) {
	s, err := Create(t.TempDir(), 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	const chunk = 20000
	for k := 0; k < 3*Window/chunk+1; k++ {
		if err := s.Append(pairs(k*chunk, chunk)); err != nil {
			t.Fatal(err)
		}
	}
	it := s.Batches(256, 1).(*iter)
	n := 0
	for it.Next() {
		th, _ := it.Batch()
		r, _ := th.Dims()
		n += r
		if c := cap(it.pool[1]) / 3; c > Window+chunk {
			t.Fatalf("the pool holds room for %d rows, more than Window + one chunk (%d)", c, Window+chunk)
		}
	}
	if it.Err() != nil || n != s.Len() {
		t.Fatalf("read %d of %d rows: %v", n, s.Len(), it.Err())
	}
}

// TestDamagedChunk checks that a chunk that is not what the manifest says is reported with
// its path.
func TestDamagedChunk(t *testing.T) {
	dir := t.TempDir()
	if _, err := Create(dir, 2, 3); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "chunks", "bad.npz")
	os.WriteFile(bad, []byte("not a zip"), 0o644)
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "bad.npz") {
		t.Errorf("Open with a damaged chunk: %v", err)
	}
}

// TestConcurrentAppendProcesses has four processes (this test binary again) append 25 chunks
// each to one store at the same time, and checks that every row arrived exactly once.
func TestConcurrentAppendProcesses(t *testing.T) {
	if dir := os.Getenv("SIMSTORE_APPEND_DIR"); dir != "" {
		base, _ := strconv.Atoi(os.Getenv("SIMSTORE_APPEND_BASE"))
		s, err := Create(dir, 2, 3)
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		for k := 0; k < 25; k++ {
			if err := s.Append(pairs(base+k*4, 4)); err != nil {
				fmt.Println(err)
				os.Exit(1)
			}
		}
		os.Exit(0)
	}
	dir := filepath.Join(t.TempDir(), "shared")
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for p := 0; p < 4; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestConcurrentAppendProcesses$")
			cmd.Env = append(os.Environ(), "SIMSTORE_APPEND_DIR="+dir, fmt.Sprintf("SIMSTORE_APPEND_BASE=%d", p*100))
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[p] = fmt.Errorf("appender %d: %v\n%s", p, err, out)
			}
		}(p)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.Chunks() != 100 || s.Len() != 400 {
		t.Fatalf("%d chunks of %d pairs, want 100 of 400", s.Chunks(), s.Len())
	}
	seen := make([]int, 400)
	for _, i := range pass(t, s, 64, 9) {
		seen[i]++
	}
	for i, k := range seen {
		if k != 1 {
			t.Fatalf("row %d stored %d times, want once", i, k)
		}
	}
}

// TestConcurrentAppendGoroutines appends from several goroutines sharing one Store while
// another lists and reads it (run with -race).
func TestConcurrentAppendGoroutines(t *testing.T) {
	s, err := Create(t.TempDir(), 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for k := 0; k < 5; k++ {
				if err := s.Append(pairs(g*50+k*10, 10)); err != nil {
					t.Error(err)
				}
			}
		}(g)
	}
	for k := 0; k < 5; k++ {
		it := s.Batches(16, uint64(k))
		for it.Next() {
		}
		if err := it.Err(); err != nil {
			t.Error(err)
		}
		it.Close()
	}
	wg.Wait()
	if s.Len() != 200 || s.Chunks() != 20 {
		t.Fatalf("%d pairs in %d chunks, want 200 in 20", s.Len(), s.Chunks())
	}
	seen := make([]int, 200)
	for _, i := range pass(t, s, 64, 1) {
		seen[i]++
	}
	for i, k := range seen {
		if k != 1 {
			t.Fatalf("row %d seen %d times", i, k)
		}
	}
}

// TestConcurrentCreate has goroutines create one store with two different widths at once:
// one manifest wins, and exactly the calls that asked for its widths succeed.
func TestConcurrentCreate(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	ok := make([]bool, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			_, err := Create(dir, 2, 3+g%2)
			ok[g] = err == nil
		}(g)
	}
	wg.Wait()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, dx := s.Dims()
	for g, o := range ok {
		if o != (3+g%2 == dx) {
			t.Errorf("Create with x of %d values: success %v, the manifest says %d", 3+g%2, o, dx)
		}
	}
}

// TestAppendDuringRefresh interleaves an Append and a Refresh of one Store at the two points
// where their lists can disagree, and checks that the store lists each chunk once: the
// chunk appended while Refresh read the directory is not dropped, and the one Refresh found
// on disk before Append listed it is not listed twice.
func TestAppendDuringRefresh(t *testing.T) {
	for _, c := range []struct {
		name string
		hook *func()
		do   func(s *Store) error
	}{
		{"append after the directory is read", &testHookRefreshListed, func(s *Store) error { return s.Append(pairs(10, 5)) }},
		{"refresh after the chunk is written", &testHookAppendWritten, func(s *Store) error { return s.Refresh() }},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := Create(t.TempDir(), 2, 3)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Append(pairs(0, 10)); err != nil {
				t.Fatal(err)
			}
			var hookErr error
			*c.hook = func() {
				*c.hook = nil // once
				hookErr = c.do(s)
			}
			defer func() { *c.hook = nil }()
			var outer error
			if c.hook == &testHookRefreshListed {
				outer = s.Refresh()
			} else {
				outer = s.Append(pairs(10, 5))
			}
			if outer != nil || hookErr != nil {
				t.Fatal(outer, hookErr)
			}
			if s.Len() != 15 || s.Chunks() != 2 {
				t.Fatalf("the store lists %d pairs in %d chunks, want 15 in 2", s.Len(), s.Chunks())
			}
			seen := make([]int, 15)
			for _, i := range pass(t, s, 4, 1) {
				seen[i]++
			}
			for i, k := range seen {
				if k != 1 {
					t.Fatalf("row %d seen %d times in a pass, want once", i, k)
				}
			}
		})
	}
}

// TestAppendedOrderIsCanonical has the Append that picked its chunk's name first list it last
// (as goroutines appending at once, or a step of the wall clock, can), and checks that the
// appending Store lists its chunks as a reopened one does, by name, so that a seed gives the
// same batches on both.
func TestAppendedOrderIsCanonical(t *testing.T) {
	dir := t.TempDir()
	s, err := Create(dir, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	written, release := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	testHookAppendWritten = func() { // the first Append waits, its chunk in place, for the second
		if calls.Add(1) == 1 {
			close(written)
			<-release
		}
	}
	defer func() { testHookAppendWritten = nil }()
	first := make(chan error)
	go func() { first <- s.Append(pairs(0, 6)) }()
	select {
	case <-written:
	case err := <-first:
		t.Fatalf("the first Append returned before its chunk was in place: %v", err)
	}
	err = s.Append(pairs(6, 7)) // named after the first chunk, listed before it
	close(release)
	if err1 := <-first; err1 != nil || err != nil {
		t.Fatal(err1, err)
	}
	testHookAppendWritten = nil
	re, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := func(s *Store) []string {
		var out []string
		for _, c := range s.snapshot() {
			out = append(out, filepath.Base(c.path))
		}
		return out
	}
	if a, b := names(s), names(re); fmt.Sprint(a) != fmt.Sprint(b) || !sort.StringsAreSorted(a) {
		t.Errorf("the appending store lists %v, the reopened one %v: want both by name", a, b)
	}
	for seed := uint64(0); seed < 4; seed++ {
		if a, b := pass(t, s, 4, seed), pass(t, re, 4, seed); fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("seed %d: the appending store gives %v, the reopened one %v", seed, a, b)
		}
	}
}

// npyPromising returns a .npy file of the values of m whose header declares rows rows instead
// of m's own.
func npyPromising(t *testing.T, m *mat.Dense, rows int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := npy.Write(&b, m); err != nil {
		t.Fatal(err)
	}
	r, c := m.Dims()
	from := fmt.Sprintf("(%d, %d), }", r, c)
	to := fmt.Sprintf("(%d, %d), }", rows, c)
	// the header keeps its length: the longer shape takes the place of padding spaces
	out := bytes.Replace(b.Bytes(), []byte(from+strings.Repeat(" ", len(to)-len(from))), []byte(to), 1)
	if bytes.Equal(out, b.Bytes()) {
		t.Fatal("npyPromising: no shape to replace")
	}
	return out
}

// TestChunkPromisingMissingRows checks that a chunk whose headers promise rows its data do not
// hold is refused when the store is opened, naming the chunk, instead of being counted in Len
// and making a pass allocate room for the missing rows; a complete chunk written by NumPy's
// np.savez_compressed (deflated) is still read.
func TestChunkPromisingMissingRows(t *testing.T) {
	const rows = 1 << 22 // promised; 2 are there
	theta, x := pairs(0, 2)
	th, xx := npyPromising(t, theta, rows), npyPromising(t, x, rows)
	var thOK, xOK bytes.Buffer
	npy.Write(&thOK, theta)
	npy.Write(&xOK, x)
	for _, c := range []struct {
		name          string
		theta, x      []byte
		method        uint16
		claim         uint64
		wantErr       bool
		wantRowsAfter int
	}{
		{"stored, shape larger than the data", th, xx, zip.Store, 0, true, 0},
		{"stored, zip sizes past the end of the file", th, xx, zip.Store, uint64(len(xx)) + 8*3*rows, true, 0},
		{"deflated, shape larger than the data", th, xx, zip.Deflate, 0, true, 0},
		{"deflated, complete", thOK.Bytes(), xOK.Bytes(), zip.Deflate, 0, false, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if _, err := Create(dir, 2, 3); err != nil {
				t.Fatal(err)
			}
			npytest.WriteZip(t, filepath.Join(dir, "chunks", "handmade.npz"),
				npytest.Member{Name: "theta.npy", Method: c.method, Data: c.theta, Claim: c.claim},
				npytest.Member{Name: "x.npy", Method: c.method, Data: c.x, Claim: c.claim})
			s, err := Open(dir)
			if c.wantErr {
				if err == nil || !strings.Contains(err.Error(), "handmade.npz") || !strings.Contains(err.Error(), "damaged") {
					t.Fatalf("Open gives %v; want an error naming handmade.npz as damaged (store lists %d pairs)", err, lenOf(s))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Len() != c.wantRowsAfter {
				t.Fatalf("%d pairs, want %d", s.Len(), c.wantRowsAfter)
			}
			if ids := pass(t, s, 4, 1); len(ids) != c.wantRowsAfter {
				t.Fatalf("a pass gives rows %v, want %d", ids, c.wantRowsAfter)
			}
		})
	}
}

func lenOf(s *Store) int {
	if s == nil {
		return 0
	}
	return s.Len()
}

// TestBatchLargerThanStore asks for batches larger than the store, as a caller wanting the
// whole set in one batch does: one batch of every row, with buffers sized by the rows there.
func TestBatchLargerThanStore(t *testing.T) {
	s, err := Create(t.TempDir(), 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	s.Append(pairs(0, 7))
	s.Append(pairs(7, 5))
	for _, size := range []int{12, 13, math.MaxInt >> 13, math.MaxInt / 2, math.MaxInt} {
		it := s.Batches(size, 1)
		n := 0
		for it.Next() {
			th, x := it.Batch()
			r, _ := th.Dims()
			if xr, _ := x.Dims(); xr != r || n != 0 {
				t.Fatalf("size %d: a batch of %d and %d rows after %d rows", size, r, xr, n)
			}
			n += r
		}
		if err := it.Err(); err != nil || n != 12 {
			t.Errorf("size %d: %d rows in one pass, error %v; want 12 in one batch", size, n, err)
		}
		it.Close()
	}
}

// TestChunkDamagedAfterListing checks that a chunk whose data no longer match their zip
// checksum (a bit flipped on disk after it was written) fails the pass that reads it, with an
// error naming the chunk, instead of training on the damaged values; θ and x alike.
func TestChunkDamagedAfterListing(t *testing.T) {
	theta, x := pairs(0, 5)
	var th, xx bytes.Buffer
	npy.Write(&th, theta)
	npy.Write(&xx, x)
	for _, c := range []struct {
		name           string
		badTheta, badX bool
	}{
		{"θ damaged", true, false},
		{"x damaged", false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			s, err := Create(dir, 2, 3)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Append(pairs(5, 5)); err != nil {
				t.Fatal(err)
			}
			npytest.WriteZip(t, filepath.Join(dir, "chunks", "flipped.npz"),
				npytest.Member{Name: "theta.npy", Method: zip.Store, Data: th.Bytes(), WrongCRC: c.badTheta},
				npytest.Member{Name: "x.npy", Method: zip.Store, Data: xx.Bytes(), WrongCRC: c.badX})
			if err := s.Refresh(); err != nil {
				t.Fatal(err)
			}
			it := s.Batches(3, 1)
			defer it.Close()
			for it.Next() {
			}
			if err := it.Err(); err == nil || !strings.Contains(err.Error(), "flipped.npz") || !strings.Contains(err.Error(), "checksum") {
				t.Errorf("a pass over a damaged chunk ends with %v, want an error naming flipped.npz and its checksum", err)
			}
		})
	}
}

// writeNamed writes rows [from, from+n) of pairs as the chunk name of the store in dir, as an
// Append would but under a name the test chooses.
func writeNamed(t *testing.T, dir, name string, from, n int) {
	t.Helper()
	th, x := pairs(from, n)
	if err := npy.WriteNPZFile(filepath.Join(dir, "chunks", name), []string{"theta", "x"}, []mat.Matrix{th, x}, false); err != nil {
		t.Fatal(err)
	}
}

// rowsOf returns the set of row ids of a pass over src.
func rowsOf(t *testing.T, src Source) map[int]bool {
	t.Helper()
	set := map[int]bool{}
	for _, i := range pass(t, src, 7, 1) {
		set[i] = true
	}
	return set
}

// TestSplitStableUnderAppends checks that chunks appended to a store, at the end of the name
// order or amid it (a slow writer's), do not move the chunks already there between the parts
// of Split with one share and seed: a training resumed on the grown store would otherwise be
// validated on pairs it was trained on, or train on pairs it had held out.
func TestSplitStableUnderAppends(t *testing.T) {
	for _, frac := range []float64{0.1, 0.3, 0.5} {
		for seed := uint64(0); seed < 8; seed++ {
			dir := t.TempDir()
			s, err := Create(dir, 2, 3)
			if err != nil {
				t.Fatal(err)
			}
			for k := 0; k < 10; k++ {
				writeNamed(t, dir, fmt.Sprintf("c%03d.npz", 10*k), 10*k, 10)
			}
			if err := s.Refresh(); err != nil {
				t.Fatal(err)
			}
			tr, va, err := s.Split(frac, seed)
			if err != nil {
				t.Fatalf("share %v, seed %d: %v", frac, seed, err)
			}
			oldTrain, oldVal := rowsOf(t, tr), rowsOf(t, va)
			forced := true // no chunk drew below the share: validation is the lowest draw's
			for _, c := range s.snapshot() {
				forced = forced && splitDraw(c.path, seed) >= frac
			}
			for k := 0; k < 10; k++ { // after every name, and between the names
				writeNamed(t, dir, fmt.Sprintf("c%03d.npz", 200+k), 100+10*k, 10)
				writeNamed(t, dir, fmt.Sprintf("c%03d.npz", 10*k+5), 200+10*k, 10)
			}
			if err := s.Refresh(); err != nil {
				t.Fatal(err)
			}
			tr, va, err = s.Split(frac, seed)
			if err != nil {
				t.Fatalf("share %v, seed %d, grown store: %v", frac, seed, err)
			}
			newTrain, newVal := rowsOf(t, tr), rowsOf(t, va)
			for i := range oldTrain {
				if newVal[i] {
					t.Fatalf("share %v, seed %d: row %d was training and is validation after appends", frac, seed, i)
				}
			}
			for i := range oldVal {
				if newTrain[i] && !forced {
					t.Fatalf("share %v, seed %d: row %d was validation and is training after appends", frac, seed, i)
				}
			}
		}
	}
}

// TestOneColumnAsVector checks that a chunk written by NumPy with a one-parameter θ (or a
// one-value x) as a vector, shape (n,) as np.savez writes theta[:, 0], is read as the column
// it is, and that a vector where several columns are expected is refused with a message that
// says a 2-D array is expected.
func TestOneColumnAsVector(t *testing.T) {
	const n = 4
	vec := func(v []float64) []byte {
		var b bytes.Buffer
		if err := npy.WriteVector(&b, v); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	dense := func(m mat.Matrix) []byte {
		var b bytes.Buffer
		if err := npy.Write(&b, m); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	ids := []float64{0, 1, 2, 3}
	x := mat.NewDense(n, 3, nil)
	for i := range n {
		x.SetRow(i, []float64{float64(i), 2 * float64(i), 3 * float64(i)})
	}
	for _, c := range []struct {
		name     string
		paramDim int
		wantErr  string
	}{
		{"θ of one parameter as a vector", 1, ""},
		{"θ of two parameters as a vector", 2, "2-D array"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if _, err := Create(dir, c.paramDim, 3); err != nil {
				t.Fatal(err)
			}
			npytest.WriteZip(t, filepath.Join(dir, "chunks", "numpy.npz"),
				npytest.Member{Name: "theta.npy", Method: zip.Store, Data: vec(ids)},
				npytest.Member{Name: "x.npy", Method: zip.Store, Data: dense(x)})
			s, err := Open(dir)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) || !strings.Contains(err.Error(), "numpy.npz") {
					t.Fatalf("Open gives %v; want an error naming numpy.npz and saying %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			it := s.Batches(n, 1)
			defer it.Close()
			seen := map[float64]bool{}
			for it.Next() {
				th, xb := it.Batch()
				for k := range th.RawMatrix().Rows {
					if i := th.At(k, 0); xb.At(k, 1) != 2*i || seen[i] {
						t.Fatalf("row %d: θ %v with x %v", k, th.RawRowView(k), xb.RawRowView(k))
					}
					seen[th.At(k, 0)] = true
				}
			}
			if err := it.Err(); err != nil || len(seen) != n {
				t.Fatalf("a pass read %d of %d rows, error %v", len(seen), n, err)
			}
		})
	}
}

// TestShared checks which pairs of sources Shared says read a common chunk: a store and
// itself, a store and a part of it, two handles of one store opened under different spellings
// of its directory; not the two parts of a Split, nor two different stores.
func TestShared(t *testing.T) {
	dir := t.TempDir()
	s, err := Create(dir, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	for k := range 6 {
		writeNamed(t, dir, fmt.Sprintf("c%d.npz", k), 10*k, 10)
	}
	if err := s.Refresh(); err != nil {
		t.Fatal(err)
	}
	train, val, err := s.Split(0.3, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Dir(dir))
	again, err := Open(filepath.Join(".", filepath.Base(dir)))
	if err != nil {
		t.Fatal(err)
	}
	other, err := Create(t.TempDir(), 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Append(pairs(0, 5)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		a, b Source
		want bool
	}{
		{"a store and itself", s, s, true},
		{"a store and its validation part", s, val, true},
		{"a training part and the store", train, s, true},
		{"one store opened twice", s, again, true},
		{"the two parts of a split", train, val, false},
		{"two stores", s, other, false},
	} {
		if path, got := Shared(c.a, c.b); got != c.want || (got && path == "") {
			t.Errorf("%s: Shared gives %q, %v; want %v", c.name, path, got, c.want)
		}
	}
}
