package sbi

import (
	"fmt"
	"math/rand/v2"

	"github.com/gosbi/gosbi/sbi/dist"
	"github.com/gosbi/gosbi/sbi/nn"
	"gonum.org/v1/gonum/mat"
)

// estimator is the core that NPE and NRE share, and that further amortized estimators build
// on: the prior, the standardization of θ and x, the optional embedding of x, and the
// preparation, training, saving and loading around the estimator's own network.
//
// Invariants: trained implies that zt has prior.Dim() entries, zx has xDim, and the network and
// emb are built for observations of xDim values. Train from fresh weights sets trained to false
// before it changes any of them, and to true once it succeeds; Train with Resume keeps the
// weights, the standardization and xDim.
type estimator struct {
	name    string // "NPE" or "NRE": the prefix of configuration errors
	label   string // the name in training results and progress, e.g. "NPE (maf)"
	kind    string // the kind in the file header: "npe" or "nre"
	prior   dist.Distribution
	cfgErr  error // the configuration's error, reported by Train and Load
	emb     EmbeddingNet
	layout  InputLayout // the embedding's, nil for none
	zt, zx  zscore
	xDim    int
	trained bool
}

// network is what the core needs of an estimator's own networks: the training view (all
// weights, the embedding's last, and the batch loss), the configured embedding of x, and a
// builder of the network that follows the embedding (the head: a flow, a classifier).
type network interface {
	model
	embedding() Embedding // nil for none
	// buildHead creates a fresh head for ctx conditioning values (the embedding's output, or x).
	buildHead(rng *rand.Rand, ctx int) error
}

// trainSet is a training set checked and split by prepare.
type trainSet struct {
	cfg        TrainConfig // with defaults
	data       *trainData  // the finite pairs, in raw units
	train, val []int       // rows of data
	dropped    int         // pairs removed for NaN or ±Inf
	rng        *rand.Rand  // the stream of the split, then of the batch order and regularizers
}

// prepare checks the configuration and the pairs, drops non-finite pairs and splits them.
func (c *estimator) prepare(theta, x *mat.Dense, cfg TrainConfig) (*trainSet, error) {
	s := &trainSet{cfg: cfg.withDefaults()}
	if err := s.cfg.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", c.label, err)
	}
	if err := checkPairs("train "+c.label, theta, x, c.prior.Dim()); err != nil {
		return nil, err
	}
	if _, cols := x.Dims(); s.cfg.Resume && c.trained && cols != c.xDim {
		return nil, fmt.Errorf("train %s: x has %d columns, the estimator was trained on %d (Resume keeps the network)", c.label, cols, c.xDim)
	}
	th, xx, dropped := dropNonFinite(theta, x)
	if th == nil {
		return nil, fmt.Errorf("train %s: all %d pairs hold NaN or infinite values", c.label, dropped)
	}
	s.data, s.dropped = &trainData{theta: th, x: xx}, dropped
	s.rng = rand.New(rand.NewPCG(s.cfg.Seed, 0x7261696e))
	n, _ := th.Dims()
	var err error
	if s.train, s.val, err = splitRows(s.rng, n, s.cfg.ValidationFraction); err != nil {
		return nil, fmt.Errorf("%s: %w", c.label, err)
	}
	return s, nil
}

// train fits m to the pairs (θᵢ, xᵢ) as NPE.Train documents: from fresh weights and a
// standardization learned on the training split, or from the current ones with cfg.Resume.
func (c *estimator) train(m network, theta, x *mat.Dense, cfg TrainConfig) (*TrainResult, error) {
	if c.cfgErr != nil {
		return nil, c.cfgErr
	}
	s, err := c.prepare(theta, x, cfg)
	if err != nil {
		return nil, err
	}
	if err := checkInputRows(m.embedding(), x); err != nil {
		return nil, fmt.Errorf("train %s: %w", c.label, err)
	}
	d := s.data
	if !(s.cfg.Resume && c.trained) {
		zx, err := fitXScore(m.embedding(), d.x, s.train)
		if err != nil {
			return nil, fmt.Errorf("train %s: %w", c.label, err)
		}
		c.trained = false // until fit succeeds: the standardization and networks change now
		c.zt, c.zx = fitZScore(d.theta, s.train), zx
		if err := c.build(m, rand.New(rand.NewPCG(s.cfg.Seed, 1)), d.x.RawMatrix().Cols); err != nil {
			return nil, err
		}
	}
	d.thetaZ, d.xZ = c.zt.apply(d.theta), c.zx.apply(d.x)
	res, err := fit(c.label, m, d, s.train, s.val, s.cfg, s.rng)
	if res != nil {
		res.Dropped = s.dropped
	}
	if err != nil {
		return res, err
	}
	c.trained = true
	return res, nil
}

// build creates fresh networks of m, the embedding then the head, for observations of xDim
// values.
func (c *estimator) build(m network, rng *rand.Rand, xDim int) error {
	c.emb, c.layout = nil, nil
	ctx := xDim
	if e := m.embedding(); e != nil {
		c.layout = layoutOf(e)
		emb, err := e.Build(rng, xDim)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		c.emb, ctx = emb, emb.Out()
	}
	if err := m.buildHead(rng, ctx); err != nil {
		return err
	}
	c.xDim = xDim
	return nil
}

// readableX reports whether the observation row can be evaluated: finite, and readable by the
// embedding's InputLayout where it has one.
func (c *estimator) readableX(row []float64) bool {
	return finite(row) && (c.layout == nil || readable(c.layout, row) == nil)
}

// observationErr returns why the observation x cannot be evaluated, nil when it can.
func (c *estimator) observationErr(x []float64) error {
	if !finite(x) {
		return fmt.Errorf("the observation holds NaN or infinite values: %v", x)
	}
	if c.layout != nil {
		if err := readable(c.layout, x); err != nil {
			return fmt.Errorf("the observation cannot be read by the embedding: %w", err)
		}
	}
	return nil
}

// withEmbedding returns the weights of the network, then those of the embedding.
func (c *estimator) withEmbedding(net []*nn.Param) []*nn.Param {
	ps := append([]*nn.Param(nil), net...)
	if c.emb != nil {
		ps = append(ps, c.emb.Params()...)
	}
	return ps
}

// context returns the conditioning rows of the raw observations x on tp: x standardized, then
// embedded when there is an embedding.
func (c *estimator) context(tp *nn.Tape, x *mat.Dense) *nn.Tensor {
	ctx := standardizedConst(tp, c.zx, x)
	if c.emb != nil {
		ctx = c.emb.Forward(tp, ctx)
	}
	return ctx
}

// batchContext returns the conditioning rows of the training pairs idx of d on tp.
func (c *estimator) batchContext(tp *nn.Tape, d *trainData, idx []int) *nn.Tensor {
	ctx := tp.Gather(d.xZ, idx)
	if c.emb != nil {
		ctx = c.emb.Forward(tp, ctx)
	}
	return ctx
}

// fillRegBatch sets the prior and the raw pairs idx of d in rb, what a regularizer sees of
// every estimator's batch.
func (c *estimator) fillRegBatch(rb *RegBatch, d *trainData, idx []int) {
	rb.Prior, rb.Theta, rb.X = c.prior, rowsOf(d.theta, idx), rowsOf(d.x, idx)
}

// contextRows returns the conditioning rows of the batch pairs rows (indices into idx) for
// RegBatch.LogPost: taken differentiably from the batch's embedded context ctx, or gathered
// again from the standardized x of d without an embedding.
func (c *estimator) contextRows(tp *nn.Tape, d *trainData, idx []int, ctx *nn.Tensor, rows []int) *nn.Tensor {
	if c.emb != nil {
		return gatherRows(tp, ctx, rows)
	}
	mapped := make([]int, len(rows))
	for j, r := range rows {
		mapped[j] = idx[r]
	}
	return tp.Gather(d.xZ, mapped)
}

// mustTrained panics unless the estimator is trained; what names the method called.
func (c *estimator) mustTrained(what string) {
	if !c.trained {
		panic(fmt.Sprintf("sbi: %s.%s: %v", c.name, what, errUntrained))
	}
}
