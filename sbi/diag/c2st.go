package diag

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/gosbi/gosbi/runenv"
	"github.com/gosbi/gosbi/sbi"
	"github.com/gosbi/gosbi/sbi/internal/cancel"
	"github.com/gosbi/gosbi/sbi/internal/safe"
	"github.com/gosbi/gosbi/sbi/nn"
)

// C2STConfig configures C2STWith and C2STContext. The zero value is sbibm's setting with seed
// 0.
type C2STConfig struct {
	Seed      uint64 // seeds the fold split, the initialisation and the minibatch order
	Folds     int    // cross-validation folds; default 5
	NoZScore  bool   // skip z-scoring (sbibm's C2ST_Z, the one the paper reports, z-scores)
	MaxEpochs int    // cap on training epochs per fold; default 10000 (sklearn's max_iter)
	Workers   int    // folds trained in parallel; 0 means GOMAXPROCS
	// MaxSamples caps the rows used from each set: a set with more rows is replaced by a
	// random subset (drawn with Seed, without replacement) of MaxSamples rows. 0 uses all
	// rows, as sbibm does. An epoch costs in proportion to the rows (see C2ST), so the cap
	// divides the time by about rows/MaxSamples; the accuracy's standard error grows to about
	// √(0.25/(2·MaxSamples)), 0.008 at 2000.
	MaxSamples int
}

// C2STResult is a classifier two-sample test.
type C2STResult struct {
	Accuracy float64   // mean held-out accuracy over the folds: 0.5 indistinguishable, 1 separable
	Folds    []float64 // held-out accuracy of each fold
	Epochs   []int     // training epochs each fold ran before the stopping rule fired
	NX, NY   int       // rows of x and y used: fewer than given when MaxSamples caps them
}

// C2ST is the classifier two-sample test exactly as sbibm defines it (Lueckmann et al. 2021,
// sbibm/metrics/c2st.py): both sets are z-scored with the mean and standard deviation of the
// reference x, an MLP with two hidden layers of 10·dim ReLU units is trained to tell them
// apart, and the score is the mean accuracy of 5-fold shuffled cross-validation. 0.5 means the
// sets cannot be told apart, 1.0 that they separate perfectly. It is the one-line form for
// notebooks, a shorthand of the naming rule (see package sbi): it panics with the error of
// C2STWith (bad input, an interrupted cell).
//
// Its cost: each of the 5 folds trains for up to 10 000 epochs (the stopping rule usually
// ends it after tens to hundreds), and an epoch costs about rows·(10·dim)² multiply-adds, so
// the cost grows linearly with the samples and quadratically with the dimension: an epoch in
// 10 dimensions costs 25 times one in 2 on the same sets. C2STWith with
// C2STConfig.MaxSamples uses a random subset of each set instead.
func C2ST(x, y *mat.Dense, seed uint64) float64 {
	return safe.Must(C2STWith(x, y, C2STConfig{Seed: seed})).Accuracy
}

// C2STWith runs the classifier two-sample test of C2ST with options. The classifier follows
// scikit-learn's MLPClassifier(hidden_layer_sizes=(10·d, 10·d), activation="relu",
// solver="adam", max_iter=10000) as sbibm configures it, with that class's defaults: Glorot
// uniform initialisation, Adam with learning rate 1e-3, minibatches of min(200, n) reshuffled
// every epoch, an L2 penalty of 1e-4, the log loss, and training stopped once the epoch's
// training loss has failed to improve by 1e-4 for more than 10 epochs in a row. Folds are
// trained in parallel; each checks the host's context (runenv.Context) once per epoch.
func C2STWith(x, y *mat.Dense, cfg C2STConfig) (*C2STResult, error) {
	return C2STContext(runenv.Context(), x, y, cfg)
}

// MustC2STWith is C2STWith for notebook cells: it returns the result alone and panics with
// C2STWith's error.
func MustC2STWith(x, y *mat.Dense, cfg C2STConfig) *C2STResult {
	return safe.Must(C2STWith(x, y, cfg))
}

// C2STContext is C2STWith stopped by ctx instead of the host's context.
func C2STContext(ctx context.Context, x, y *mat.Dense, cfg C2STConfig) (*C2STResult, error) {
	if x == nil || y == nil {
		return nil, fmt.Errorf("diag: C2ST needs two sample sets, got nil")
	}
	nx, d := x.Dims()
	ny, dy := y.Dims()
	if d != dy {
		return nil, fmt.Errorf("diag: C2ST: x has %d columns but y has %d; both sets need one column per parameter", d, dy)
	}
	if cfg.Folds == 0 {
		cfg.Folds = 5
	}
	if cfg.MaxEpochs == 0 {
		cfg.MaxEpochs = 10000
	}
	if cfg.MaxSamples < 0 {
		return nil, fmt.Errorf("diag: C2ST: MaxSamples is %d; use 0 for all samples or a positive cap", cfg.MaxSamples)
	}
	if cfg.MaxSamples > 0 {
		x = subsetRows(x, cfg.MaxSamples, rand.New(rand.NewPCG(cfg.Seed, 0x5B)))
		y = subsetRows(y, cfg.MaxSamples, rand.New(rand.NewPCG(cfg.Seed, 0x5C)))
		nx, _ = x.Dims()
		ny, _ = y.Dims()
	}
	if cfg.Folds < 2 || nx+ny < 2*cfg.Folds {
		return nil, fmt.Errorf("diag: C2ST needs at least 2 folds and 2 samples per fold, got %d folds for %d samples", cfg.Folds, nx+ny)
	}
	data, labels, err := c2stData(x, y, !cfg.NoZScore)
	if err != nil {
		return nil, err
	}
	n := nx + ny
	// KFold(shuffle=True): one permutation, then contiguous folds whose sizes differ by at most
	// one.
	perm := rand.New(rand.NewPCG(cfg.Seed, 0xC25)).Perm(n)
	res := &C2STResult{Folds: make([]float64, cfg.Folds), Epochs: make([]int, cfg.Folds), NX: nx, NY: ny}
	prog := sbi.NewProgress("C2ST", cfg.Folds)
	workers := cfg.Workers
	if workers <= 0 {
		workers = max(1, runtimeProcs())
	}
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	errs := make([]error, cfg.Folds)
	start := 0
	for f := range cfg.Folds {
		size := n / cfg.Folds
		if f < n%cfg.Folds {
			size++
		}
		test := perm[start : start+size]
		train := append(append([]int(nil), perm[:start]...), perm[start+size:]...)
		start += size
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			defer safe.Recover(&errs[f], fmt.Sprintf("diag: C2ST fold %d", f+1))
			rng := rand.New(rand.NewPCG(cfg.Seed, uint64(f+1)))
			acc, epochs, err := c2stFold(ctx, rng, data, labels, train, test, cfg.MaxEpochs)
			res.Folds[f], res.Epochs[f], errs[f] = acc, epochs, err
			prog.Add(1)
		}()
	}
	wg.Wait()
	if err := finishTrials(ctx, prog, errs, "folds"); err != nil {
		return nil, err
	}
	res.Accuracy = stat.Mean(res.Folds, nil)
	return res, nil
}

// subsetRows returns m rows of a drawn at random without replacement, in random order, or a
// itself when it has at most m rows.
func subsetRows(a *mat.Dense, m int, rng *rand.Rand) *mat.Dense {
	n, d := a.Dims()
	if n <= m {
		return a
	}
	out := mat.NewDense(m, d, nil)
	for i, r := range rng.Perm(n)[:m] {
		out.SetRow(i, a.RawRowView(r))
	}
	return out
}

// c2stData stacks x over y, z-scored by x's column means and (population) standard deviations
// when z is true, and labels x 0 and y 1.
func c2stData(x, y *mat.Dense, zscore bool) (*mat.Dense, *mat.Dense, error) {
	nx, d := x.Dims()
	ny, _ := y.Dims()
	data := mat.NewDense(nx+ny, d, nil)
	data.Stack(x, y)
	labels := mat.NewDense(nx+ny, 1, nil)
	for i := nx; i < nx+ny; i++ {
		labels.Set(i, 0, 1)
	}
	for i := range nx + ny {
		for j := range d {
			if v := data.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, nil, fmt.Errorf("diag: C2ST: sample %d has a non-finite value %v in column %d; drop such samples first", i, v, j)
			}
		}
	}
	if !zscore {
		return data, labels, nil
	}
	z, err := fitZ(x)
	if err != nil {
		return nil, nil, fmt.Errorf("diag: C2ST: the reference set x: %w", err)
	}
	return z.apply(data), labels, nil
}

// c2stFold trains the classifier on the train rows and returns the accuracy on the test rows
// and the number of epochs run.
func c2stFold(ctx context.Context, rng *rand.Rand, data, labels *mat.Dense, train, test []int, maxEpochs int) (float64, int, error) {
	_, d := data.Dims()
	net, epoch, err := trainClassifier(ctx, rng, data, labels, train, classifierConfig{hidden: []int{10 * d, 10 * d}, maxEpochs: maxEpochs}, "C2ST")
	if err != nil {
		return 0, epoch, err
	}
	tp := nn.NewTape()
	tp.NoGrad = true
	logits := net.Forward(tp, tp.Gather(data, test))
	correct := 0
	for k, i := range test {
		if (logits.Data[k] > 0) == (labels.At(i, 0) == 1) {
			correct++
		}
	}
	return float64(correct) / float64(len(test)), epoch, nil
}

// classifierConfig sets the classifier of trainClassifier: the hidden widths, the most epochs,
// and Adam's learning rate and the minibatch size (0: scikit-learn's 1e-3 and min(200, rows)).
type classifierConfig struct {
	hidden    []int
	maxEpochs int
	lr        float64
	batch     int
}

// trainClassifier trains a ReLU MLP with the given hidden widths on the rows of data (labels
// 0 or 1 in the one column of labels) as scikit-learn's MLPClassifier with its defaults (see
// C2STWith): Glorot-uniform initialisation of weights and biases, Adam with learning rate 1e-3,
// minibatches of min(200, rows) reshuffled every epoch, an L2 penalty of 1e-4 on the weights,
// the log loss, and at most maxEpochs epochs, stopping once the epoch's training loss has
// failed to improve by 1e-4 for more than 10 epochs in a row. It returns the network, whose
// output is the logit of label 1, and the epochs run; what names the caller in errors.
func trainClassifier(ctx context.Context, rng *rand.Rand, data, labels *mat.Dense, rows []int, cfg classifierConfig, what string) (*nn.MLP, int, error) {
	const (
		alpha     = 1e-4 // L2 penalty
		tol       = 1e-4
		noImprove = 10
	)
	lr, batchLimit, maxEpochs := cfg.lr, cfg.batch, cfg.maxEpochs
	if lr == 0 {
		lr = 1e-3
	}
	if batchLimit == 0 {
		batchLimit = 200
	}
	_, d := data.Dims()
	net := nn.NewMLP(rng, append(append([]int{d}, cfg.hidden...), 1), nn.ReLU)
	var weights []*nn.Param
	for _, l := range net.Layers {
		// Glorot uniform, as scikit-learn initialises both weights and biases.
		bound := math.Sqrt(6 / float64(l.In+l.Out))
		nn.InitUniform(l.W, rng, bound)
		nn.InitUniform(l.B, rng, bound)
		weights = append(weights, l.W)
	}
	opt := nn.NewAdam(net.Params(), lr)
	tp := nn.NewTape()
	order := append([]int(nil), rows...)
	batch := min(batchLimit, len(rows))
	best, stall, epoch := math.Inf(1), 0, 0
	for epoch < maxEpochs {
		if err := cancel.Check(ctx, what); err != nil {
			return nil, epoch, err
		}
		epoch++
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		var total float64
		for s := 0; s < len(order); s += batch {
			idx := order[s:min(s+batch, len(order))]
			xb, yb := tp.Gather(data, idx), tp.Gather(labels, idx)
			loss := tp.BCEWithLogits(net.Forward(tp, xb), yb)
			tp.Backward(loss)
			// Loss and gradient of the L2 penalty α/(2·batch)·Σ W² (weights only).
			var sq float64
			scale := alpha / float64(len(idx))
			for _, w := range weights {
				for i, v := range w.Data {
					sq += v * v
					w.Grad[i] += scale * v
				}
			}
			total += (loss.Item() + 0.5*scale*sq) * float64(len(idx))
			opt.Step()
			opt.ZeroGrad()
			tp.Reset()
		}
		epochLoss := total / float64(len(order))
		if math.IsNaN(epochLoss) {
			return nil, epoch, fmt.Errorf("diag: %s: the classifier's loss became NaN at epoch %d", what, epoch)
		}
		if epochLoss > best-tol {
			stall++
		} else {
			stall = 0
		}
		best = math.Min(best, epochLoss)
		if stall > noImprove {
			break
		}
	}
	return net, epoch, nil
}

// String is a one-line summary.
func (r *C2STResult) String() string {
	f := make([]string, len(r.Folds))
	for i, a := range r.Folds {
		f[i] = fmt.Sprintf("%.3f", a)
	}
	return fmt.Sprintf("C2ST accuracy %.4f (folds %s)", r.Accuracy, strings.Join(f, ", "))
}

// MIMEBundle shows the summary as HTML and text.
func (r *C2STResult) MIMEBundle() map[string]any {
	return map[string]any{"text/html": "<div><b>C2ST</b> " + r.String()[5:] + "</div>", "text/plain": r.String()}
}
