// Package simstore keeps simulations on disk in chunks, so that a study's jobs can append to
// one training set from separate processes and a training run can stream a set larger than
// memory.
//
// A store is a directory: manifest.json names the format and the widths of θ and x, and
// chunks/ holds one NumPy .npz file per append, with arrays theta and x (one row per
// simulation, float64; np.load reads them; a chunk written by NumPy may hold a width of one as
// a vector). Append writes its chunk to a temporary file and
// renames it into chunks/ (internal/atomicfile), under a name no other appender can pick
// (time, process id and random bits), so appenders never share a file, need no lock on the
// store, and a reader lists complete chunks only. Chunks are immutable once written.
//
// An append holds an flock(2) lock on its temporary file (a hidden name in chunks/) until the
// file is renamed into place, and the lock ends with its process. Open removes the temporary
// files whose lock it can take, which appends killed while they wrote left behind, and keeps
// those being written; internal/atomicfile.RemoveStale says which file systems share these
// locks between hosts, as it needs, and what happens where they do not.
//
// Reading goes through Source, the interface training streams from: Batches walks the pairs
// once, in batches, in an order fixed by a seed. It visits the chunks in a seeded order and
// keeps a shuffle pool of at least Window rows, drawn from several chunks and shuffled
// together, from which batches are taken; memory stays bounded by the pool (Window rows plus
// the largest chunk, plus one batch), whatever the number of simulations and chunks. A chunk
// found damaged as a pass reads it (its data do not match their zip checksum, or end short)
// ends the pass with an error naming the chunk, rather than being skipped or read as it is.
// Split divides a store into training and validation parts by whole chunks.
package simstore

import (
	"archive/zip"
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gosbi/gosbi/internal/atomicfile"
	"github.com/gosbi/gosbi/internal/readlimit"
	"github.com/gosbi/gosbi/sbi/internal/zipmember"
	"github.com/gosbi/gosbi/sbi/npy"
	"gonum.org/v1/gonum/mat"
)

// Source is a set of (θ, x) pairs read in batches: a Store or a part of one.
type Source interface {
	// Dims returns the widths of θ and of x.
	Dims() (paramDim, dataDim int)
	// Len returns the number of pairs.
	Len() int
	// Batches returns an iterator over one pass through the pairs in batches of size rows (the
	// last may be shorter), in an order fixed by seed.
	Batches(size int, seed uint64) Iterator
}

// Iterator walks one pass of a Source. Next loads the next batch and reports false at the end
// of the pass or on an error (Err tells which); Batch returns it, valid until the next call of
// Next. Close releases the buffers.
type Iterator interface {
	Next() bool
	Batch() (theta, x *mat.Dense)
	Err() error
	Close() error
}

// Window is the least number of rows Batches keeps in its shuffle pool (when the source has
// them): 2¹⁶ rows, 52 MB for 100 values per row.
const Window = 1 << 16

const (
	manifestName = "manifest.json"
	chunkDir     = "chunks"
	format       = "gosbi-simstore"
)

type manifest struct {
	Format   string `json:"format"`
	Version  int    `json:"version"`
	ParamDim int    `json:"param_dim"`
	DataDim  int    `json:"data_dim"`
}

// Store is a simulation store opened from its directory. Its list of chunks is the one read
// by Open (or the last Refresh) and those it appended itself; chunks appended by other
// processes are seen after Refresh. Every Store lists its chunks in the order of their names,
// however it came to list them (Open, Refresh or Append, in whatever order appends finished),
// so that a seed gives the same batches and the same Split on any Store listing the same
// chunks. A Store is safe for concurrent use; an iterator or a part from Split keeps the
// chunks listed when it was made.
type Store struct {
	dir               string
	paramDim, dataDim int

	mu     sync.Mutex // guards chunks and n
	chunks []chunk
	n      int
}

type chunk struct {
	path string
	rows int
}

// Create opens the store in dir for pairs of paramDim and dataDim values, creating the
// directory and its manifest when they do not exist; an existing store must have the same
// widths.
func Create(dir string, paramDim, dataDim int) (*Store, error) {
	if paramDim < 1 || dataDim < 1 {
		return nil, fmt.Errorf("simstore: widths %d and %d, expected θ and x of at least one value", paramDim, dataDim)
	}
	if err := os.MkdirAll(filepath.Join(dir, chunkDir), 0o755); err != nil {
		return nil, fmt.Errorf("simstore: %w", err)
	}
	want := manifest{Format: format, Version: 1, ParamDim: paramDim, DataDim: dataDim}
	if err := createManifest(dir, want); err != nil {
		return nil, err
	}
	s, err := Open(dir)
	if err != nil {
		return nil, err
	}
	if s.paramDim != paramDim || s.dataDim != dataDim {
		return nil, fmt.Errorf("simstore: %s holds θ of %d and x of %d values, not %d and %d: use another directory", dir, s.paramDim, s.dataDim, paramDim, dataDim)
	}
	return s, nil
}

// createManifest writes the manifest unless one exists: complete in a temporary file, then
// linked to its name, which fails when another process got there first (whose manifest then
// stands, and Create compares the widths with it).
func createManifest(dir string, m manifest) error {
	path := filepath.Join(dir, manifestName)
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	// 0644 less the umask, as the chunks get (npy.WriteNPZFile): whoever may read them may
	// open the store
	f, release, err := atomicfile.CreateTemp(dir, manifestName, 0o644)
	if err != nil {
		return fmt.Errorf("simstore: %w", err)
	}
	release()
	defer os.Remove(f.Name())
	b, _ := json.MarshalIndent(m, "", "  ")
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("simstore: writing the manifest: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("simstore: writing the manifest: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("simstore: writing the manifest: %w", err)
	}
	if err := os.Link(f.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("simstore: writing the manifest: %w", err)
	}
	return nil
}

// Open opens an existing store and lists its chunks. A file in chunks/ that is not a complete
// chunk of the store's widths (cut short, damaged, of another store) is an error that names
// it, and Open returns no store until the file is moved out.
func Open(dir string) (*Store, error) {
	b, err := readlimit.File(filepath.Join(dir, manifestName), "a simstore manifest", maxManifestSize)
	if err != nil {
		return nil, fmt.Errorf("simstore: %s is not a store (create it with Create): %w", dir, err)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil || m.Format != format {
		return nil, fmt.Errorf("simstore: %s: not a %s manifest (%v)", filepath.Join(dir, manifestName), format, err)
	}
	if m.Version != 1 || m.ParamDim < 1 || m.DataDim < 1 {
		return nil, fmt.Errorf("simstore: manifest version %d with widths %d and %d, expected version 1 and positive widths", m.Version, m.ParamDim, m.DataDim)
	}
	s := &Store{dir: dir, paramDim: m.ParamDim, dataDim: m.DataDim}
	// Best effort, once per Store rather than per Append, whose cost would grow with the
	// chunks: a temporary file it cannot remove, or whose writer it cannot tell ended, stays,
	// hidden from every listing; an unreadable chunks/ is Refresh's error.
	atomicfile.RemoveStale(filepath.Join(dir, chunkDir))
	if err := s.Refresh(); err != nil {
		return nil, err
	}
	return s, nil
}

// Refresh lists the chunks again, picking up those appended since Open. A new chunk whose
// arrays do not have the store's widths, or do not hold the rows their headers declare, is an
// error that names it.
func (s *Store) Refresh() error {
	known := map[string]int{} // listed before the directory is read
	for _, c := range s.snapshot() {
		known[c.path] = c.rows
	}
	ents, err := os.ReadDir(filepath.Join(s.dir, chunkDir))
	if err != nil {
		return fmt.Errorf("simstore: %w", err)
	}
	if testHookRefreshListed != nil {
		testHookRefreshListed()
	}
	var chunks []chunk
	n := 0
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".npz") {
			continue // temporary files of appends under way
		}
		path := filepath.Join(s.dir, chunkDir, name)
		rows, ok := known[path]
		if !ok {
			if rows, err = s.chunkRows(path); err != nil {
				return err
			}
		}
		chunks = append(chunks, chunk{path: path, rows: rows})
		n += rows
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// A chunk this store appended while the directory was read is listed now but was not
	// before, and the directory may have been read before its rename: keep it.
	found := make(map[string]bool, len(chunks))
	for _, c := range chunks {
		found[c.path] = true
	}
	for _, c := range s.chunks {
		if _, had := known[c.path]; !had && !found[c.path] {
			chunks = append(chunks, c)
			n += c.rows
		}
	}
	sort.Slice(chunks, func(i, j int) bool { return chunks[i].path < chunks[j].path })
	s.chunks, s.n = chunks, n
	return nil
}

// Test hooks: called by Refresh once it has read the directory, by Append once its chunk is in
// place.
var testHookRefreshListed, testHookAppendWritten func()

// snapshot returns the listed chunks; the slice is never written again (Append and Refresh
// replace or extend it under the lock, copying on append).
func (s *Store) snapshot() []chunk {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.chunks[:len(s.chunks):len(s.chunks)]
}

// chunkRows checks a chunk and returns its rows: the headers of θ and x must agree with the
// manifest and with each other, and each member must hold the values its header promises, so
// that a damaged chunk is refused when it is listed rather than counted in Len and given room
// in a pass's pool for rows that are not there. A file it cannot use is an error that says to
// move it out: Open and Refresh refuse the store while it is there.
func (s *Store) chunkRows(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("simstore: chunk %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("simstore: chunk %s: %w", path, err)
	}
	rows, err := s.checkChunk(f, st.Size())
	if err != nil {
		return 0, fmt.Errorf("simstore: chunk %s: %w; move it out of the store (out of %s) to open it", path, err, filepath.Join(s.dir, chunkDir))
	}
	return rows, nil
}

// checkChunk returns the rows of the chunk r of size bytes after checking its arrays.
func (s *Store) checkChunk(r io.ReaderAt, size int64) (int, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return 0, fmt.Errorf("%w: the chunk is damaged (a copy cut short?)", err)
	}
	var rows [2]int
	for k, name := range []string{"theta", "x"} {
		h, err := memberHeader(zr, size, name)
		if err != nil {
			return 0, err
		}
		r, c := h.Dims()
		want := []int{s.paramDim, s.dataDim}[k]
		// A vector of n values is the one column it holds (NumPy writes theta[:, 0] so).
		if vector := len(h.Shape) == 1 && want == 1; c != want || (len(h.Shape) != 2 && !vector) {
			return 0, fmt.Errorf("%s has shape %v, expected a 2-D array of %d columns (rows, %d)%s: a chunk of another store or simulator", name, h.Shape, want, want, oneColumnHint(want))
		}
		rows[k] = r
	}
	if rows[0] != rows[1] {
		return 0, fmt.Errorf("%d rows of θ and %d of x, expected one x per θ", rows[0], rows[1])
	}
	return rows[0], nil
}

// oneColumnHint says that a vector is taken for one column only.
func oneColumnHint(want int) string {
	if want == 1 {
		return ", or a vector of one value per row"
	}
	return ""
}

// memberHeader returns the header of array name of zr, an archive of size bytes, after
// checking that the member holds the values the header promises: a stored member (as Append
// writes them) by its sizes, which must lie within the archive (zipmember.StoredSize);
// another by reading it through.
func memberHeader(zr *zip.Reader, size int64, name string) (npy.Header, error) {
	var m *zip.File
	for _, f := range zr.File {
		if f.Name == name+".npy" {
			if m != nil {
				return npy.Header{}, fmt.Errorf("array %s stored twice: the chunk is damaged", name)
			}
			m = f
		}
	}
	if m == nil {
		return npy.Header{}, fmt.Errorf("array %s: %w (a chunk holds arrays theta and x)", name, fs.ErrNotExist)
	}
	rc, err := m.Open()
	if err != nil {
		return npy.Header{}, fmt.Errorf("array %s: %w", name, err)
	}
	defer rc.Close()
	cr := &countingReader{r: rc}
	h, err := npy.ReadHeader(cr)
	if err != nil {
		return npy.Header{}, fmt.Errorf("array %s: %w", name, err)
	}
	vsize, err := h.ValueSize()
	if err != nil {
		return npy.Header{}, fmt.Errorf("array %s: %w", name, err)
	}
	need := cr.n + int64(h.Len())*int64(vsize)
	has := zipmember.StoredSize(m, size)
	if has < 0 {
		if _, err := io.Copy(io.Discard, cr); err != nil {
			return npy.Header{}, fmt.Errorf("array %s: %w: the chunk is damaged", name, err)
		}
		has = cr.n
	}
	if has < need {
		return npy.Header{}, fmt.Errorf("array %s: shape %v needs %d bytes, the member holds %d: the chunk is damaged", name, h.Shape, need, has)
	}
	return h, nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// Dims returns the widths of θ and of x.
func (s *Store) Dims() (paramDim, dataDim int) { return s.paramDim, s.dataDim }

// Len returns the number of pairs in the listed chunks.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// Chunks returns the number of listed chunks.
func (s *Store) Chunks() int { return len(s.snapshot()) }

// Dir returns the store's directory.
func (s *Store) Dir() string { return s.dir }

// String describes the store, as a notebook shows it: its directory, the number of pairs and
// their widths, and the number of chunks listed.
func (s *Store) String() string {
	s.mu.Lock()
	n, k := s.n, len(s.chunks)
	s.mu.Unlock()
	return fmt.Sprintf("simstore %q: %s", s.dir, s.contents(n, k))
}

// contents describes n pairs of the store's widths in k chunks.
func (s *Store) contents(n, k int) string {
	return fmt.Sprintf("%s (θ of %s, x of %d) in %s", count(n, "pair"), count(s.paramDim, "value"), s.dataDim, count(k, "chunk"))
}

// Append writes the pairs (θᵢ, xᵢ) as one new chunk, atomically; it is safe to call from any
// number of goroutines and processes at once. The store's own list gains the chunk.
func (s *Store) Append(theta, x *mat.Dense) error {
	if theta == nil || x == nil {
		return errors.New("simstore: Append needs θ and x (one row per simulation)")
	}
	n, pt := theta.Dims()
	nx, dx := x.Dims()
	if n != nx || pt != s.paramDim || dx != s.dataDim {
		return fmt.Errorf("simstore: Append of θ %d×%d and x %d×%d, expected the same rows and %d and %d columns", n, pt, nx, dx, s.paramDim, s.dataDim)
	}
	var rnd [8]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return fmt.Errorf("simstore: %w", err)
	}
	name := fmt.Sprintf("%020d-%d-%s.npz", time.Now().UnixNano(), os.Getpid(), hex.EncodeToString(rnd[:]))
	path := filepath.Join(s.dir, chunkDir, name)
	if err := npy.WriteNPZFile(path, []string{"theta", "x"}, []mat.Matrix{theta, x}, false); err != nil {
		return fmt.Errorf("simstore: %w", err)
	}
	if testHookAppendWritten != nil {
		testHookAppendWritten()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// in name order, as Refresh lists them: another Append may have listed a later name first
	k := sort.Search(len(s.chunks), func(i int) bool { return s.chunks[i].path >= path })
	if k < len(s.chunks) && s.chunks[k].path == path {
		return nil // a Refresh since the rename listed it
	}
	c := chunk{path: path, rows: n}
	if k == len(s.chunks) {
		s.chunks = append(s.chunks, c) // beyond every snapshot's length
	} else { // a new slice: snapshots share the old one
		chunks := make([]chunk, 0, len(s.chunks)+1)
		chunks = append(append(append(chunks, s.chunks[:k]...), c), s.chunks[k:]...)
		s.chunks = chunks
	}
	s.n += n
	return nil
}

// Split divides the store into a training and a validation part of whole chunks. Each
// chunk's part is decided by its file name and seed alone: a draw uniform in [0, 1), and the
// chunk is held out for validation when its draw is below frac. So, for one frac and seed,
// chunks appended later, wherever their names sort, never move a chunk from training to
// validation: a training resumed on the grown store is never validated on pairs it was
// trained on, nor trained on pairs it held out (but for the one case below). Validation holds
// about frac of the chunks, and of the pairs when the chunks are of one size; about, because
// each chunk draws on its own, so that a store of few chunks may hold out more or fewer.
//
// When no chunk draws below frac, validation is the chunk of the smallest draw, so that it
// holds at least one chunk; that chunk goes to training once an appended chunk draws lower. A
// split that leaves no chunk for training is an error. Split needs at least two chunks.
func (s *Store) Split(frac float64, seed uint64) (train, val Source, err error) {
	if !(frac > 0 && frac < 1) {
		return nil, nil, fmt.Errorf("simstore: Split(%v), expected a share between 0 and 1", frac)
	}
	chunks := s.snapshot()
	switch len(chunks) {
	case 0:
		return nil, nil, fmt.Errorf("simstore: Split needs at least two chunks, the store %s has none: Append simulations first (or Refresh, when other processes append them)", s.dir)
	case 1:
		return nil, nil, fmt.Errorf("simstore: Split needs at least two chunks, the store has 1: append in smaller chunks")
	}
	held := make([]bool, len(chunks))
	lowest, nheld := 0, 0
	low := 1.0 // the smallest draw, of chunk lowest
	for k, c := range chunks {
		u := splitDraw(c.path, seed)
		if u < low {
			lowest, low = k, u
		}
		if held[k] = u < frac; held[k] {
			nheld++
		}
	}
	switch nheld {
	case 0:
		held[lowest] = true
	case len(chunks):
		return nil, nil, fmt.Errorf("simstore: Split(%v, seed %d) draws all %d chunks for validation, none is left for training: use a smaller share or another seed, or append more chunks", frac, seed, len(chunks))
	}
	tr, va := &part{s: s}, &part{s: s}
	for k, c := range chunks {
		if held[k] {
			va.add(c)
		} else {
			tr.add(c)
		}
	}
	return tr, va, nil
}

// splitDraw returns Split's draw for the chunk at path: uniform in [0, 1), a function of seed
// and the chunk's file name (not of its directory, so that a store copied elsewhere splits
// alike).
func splitDraw(path string, seed uint64) float64 {
	h := fnv.New64a()
	h.Write([]byte(filepath.Base(path)))
	return mrand.New(mrand.NewPCG(seed, h.Sum64())).Float64()
}

// Shared returns a chunk that sources a and b both read, and true, when both are stores or
// parts of stores of this package (their chunks are compared as files); false when they share
// none, or when either is another implementation of Source, whose pairs it cannot tell. A
// validation source that shares a chunk with the training source scores pairs that training
// saw: Split divides a store into parts that share none.
func Shared(a, b Source) (chunkPath string, shared bool) {
	ca, okA := chunksOf(a)
	cb, okB := chunksOf(b)
	if !okA || !okB {
		return "", false
	}
	seen := make(map[string]bool, len(ca))
	for _, c := range ca {
		seen[chunkKey(c.path)] = true
	}
	for _, c := range cb {
		if seen[chunkKey(c.path)] {
			return c.path, true
		}
	}
	return "", false
}

// chunksOf returns the chunks that src reads, when it is a store or a part of one.
func chunksOf(src Source) ([]chunk, bool) {
	switch s := src.(type) {
	case *Store:
		if s == nil {
			return nil, false
		}
		return s.snapshot(), true
	case *part:
		return s.chunks, true
	}
	return nil, false
}

// chunkKey names a chunk file independently of how its store's directory was given.
func chunkKey(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return filepath.Clean(path)
}

// part is a subset of a store's chunks.
type part struct {
	s      *Store
	chunks []chunk
	n      int
}

func (p *part) add(c chunk)      { p.chunks = append(p.chunks, c); p.n += c.rows }
func (p *part) Dims() (int, int) { return p.s.Dims() }
func (p *part) Len() int         { return p.n }
func (p *part) Batches(size int, seed uint64) Iterator {
	return newIter(p.chunks, p.s.paramDim, p.s.dataDim, size, seed)
}

// String describes the part, as a notebook shows it: its store and what it holds of it.
func (p *part) String() string {
	return fmt.Sprintf("part of simstore %q: %s", p.s.dir, p.s.contents(p.n, len(p.chunks)))
}

// Batches implements Source over every listed chunk.
func (s *Store) Batches(size int, seed uint64) Iterator {
	return newIter(s.snapshot(), s.paramDim, s.dataDim, size, seed)
}

// iter is the shuffle-pool iterator of Batches.
type iter struct {
	chunks   []chunk
	order    []int
	next     int // position in order of the next chunk to load
	pt, dx   int
	size     int
	rng      *mrand.Rand
	pool     [2][]float64 // θ and x rows of the pool
	poolRows int
	batch    [2][]float64
	bt, bx   *mat.Dense
	err      error
	readBuf  *bufio.Reader
}

// freePools keeps the buffers of closed iterators for the next ones: passes that follow each
// other (a standardization pass, then an epoch's training and validation passes) reuse one
// pool instead of leaving the previous one for the garbage collector, so that the process's
// memory holds one pool per open iterator.
var freePools struct {
	sync.Mutex
	bufs [][2][]float64
}

func newIter(chunks []chunk, pt, dx, size int, seed uint64) *iter {
	it := &iter{chunks: chunks, pt: pt, dx: dx, size: size, rng: mrand.New(mrand.NewPCG(seed, 0x62617463))}
	freePools.Lock()
	if k := len(freePools.bufs); k > 0 {
		it.pool = freePools.bufs[k-1]
		it.pool[0], it.pool[1] = it.pool[0][:0], it.pool[1][:0]
		freePools.bufs = freePools.bufs[:k-1]
	}
	freePools.Unlock()
	if size < 1 {
		it.err = fmt.Errorf("simstore: batches of %d rows, expected at least 1", size)
		return it
	}
	it.order = it.rng.Perm(len(chunks))
	return it
}

// String describes the iterator, as a notebook shows it: its batches and chunks.
func (it *iter) String() string {
	s := fmt.Sprintf("simstore iterator: batches of %d rows over %s", it.size, count(len(it.chunks), "chunk"))
	if it.err != nil {
		s += " (failed: Err says why)"
	}
	return s
}

// Next implements Iterator.
func (it *iter) Next() bool {
	if it.err != nil {
		return false
	}
	if it.poolRows < it.size && it.next < len(it.order) {
		if err := it.refill(); err != nil {
			it.err = err
			return false
		}
	}
	if it.poolRows == 0 {
		return false
	}
	k := min(it.size, it.poolRows) // the batch is the pool's last k rows
	lo := it.poolRows - k
	for a, w := range []int{it.pt, it.dx} {
		if cap(it.batch[a]) < k*w { // k, not size: a batch may be asked larger than the source
			it.batch[a] = make([]float64, k*w)
		}
		it.batch[a] = it.batch[a][:k*w]
		copy(it.batch[a], it.pool[a][lo*w:it.poolRows*w])
	}
	it.poolRows = lo
	if it.bt == nil || it.bt.RawMatrix().Rows != k {
		it.bt, it.bx = mat.NewDense(k, it.pt, it.batch[0]), mat.NewDense(k, it.dx, it.batch[1])
	}
	return true
}

// refill loads chunks into the pool until it holds Window rows (or the chunks run out) and
// shuffles the pool.
func (it *iter) refill() error {
	for it.poolRows < max(Window, it.size) && it.next < len(it.order) {
		c := it.chunks[it.order[it.next]]
		it.next++
		if err := it.load(c); err != nil {
			return err
		}
	}
	n := it.poolRows
	for i := n - 1; i > 0; i-- { // Fisher–Yates over whole rows
		j := it.rng.IntN(i + 1)
		for a, w := range []int{it.pt, it.dx} {
			ri, rj := it.pool[a][i*w:(i+1)*w], it.pool[a][j*w:(j+1)*w]
			for t := range ri {
				ri[t], rj[t] = rj[t], ri[t]
			}
		}
	}
	return nil
}

// load appends the rows of chunk c to the pool.
func (it *iter) load(c chunk) error {
	zr, err := zip.OpenReader(c.path)
	if err != nil {
		return fmt.Errorf("simstore: chunk %s: %w", c.path, err)
	}
	defer zr.Close()
	for a, name := range []string{"theta", "x"} {
		w := []int{it.pt, it.dx}[a]
		need := (it.poolRows + c.rows) * w
		if cap(it.pool[a]) < need {
			grown := make([]float64, it.poolRows*w, max(need, (Window+c.rows)*w))
			copy(grown, it.pool[a][:it.poolRows*w])
			it.pool[a] = grown
		}
		it.pool[a] = it.pool[a][:need]
		f, err := zr.Open(name + ".npy")
		if err != nil {
			return fmt.Errorf("simstore: chunk %s: %w", c.path, err)
		}
		if it.readBuf == nil {
			it.readBuf = bufio.NewReaderSize(f, 1<<16)
		} else {
			it.readBuf.Reset(f)
		}
		h, err := npy.ReadHeader(it.readBuf)
		if err == nil {
			if r, cols := h.Dims(); r != c.rows || cols != w {
				err = fmt.Errorf("%s is %d×%d, expected %d×%d (was the chunk replaced?)", name, r, cols, c.rows, w)
			}
		}
		if err == nil {
			err = npy.ReadValues(it.readBuf, h, it.pool[a][it.poolRows*w:need])
		}
		if err == nil { // the zip reader compares the member with its checksum at its end only
			if _, err = io.Copy(io.Discard, it.readBuf); err != nil {
				err = fmt.Errorf("%s: %w: the chunk is damaged, move it out of the store", name, err)
			}
		}
		f.Close()
		if err != nil {
			return fmt.Errorf("simstore: chunk %s: %w", c.path, err)
		}
	}
	it.poolRows += c.rows
	return nil
}

// Batch implements Iterator.
func (it *iter) Batch() (theta, x *mat.Dense) { return it.bt, it.bx }

// Err implements Iterator.
func (it *iter) Err() error { return it.err }

// Close implements Iterator: the pool's buffers go to the next iterator.
func (it *iter) Close() error {
	if it.pool[0] != nil || it.pool[1] != nil {
		freePools.Lock()
		if len(freePools.bufs) < 2 {
			freePools.bufs = append(freePools.bufs, it.pool)
		}
		freePools.Unlock()
	}
	it.pool, it.poolRows, it.batch, it.bt, it.bx = [2][]float64{}, 0, [2][]float64{}, nil, nil
	return nil
}

// maxManifestSize bounds manifest.json (1 MiB; Create writes about a hundred bytes).
const maxManifestSize = 1 << 20

// count returns "1 noun" or "n nouns".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
