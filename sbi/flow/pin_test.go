package flow

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gosbi/gosbi/sbi/nn"
	"gonum.org/v1/gonum/mat"
)

// pinCase is one flow whose outputs are pinned.
type pinCase struct {
	name   string
	cfg    Config
	random bool // parameters drawn from N(0, 0.25²) after New (far from the identity)
}

var pinCases = []pinCase{
	{"maf-new", Config{Kind: MAF, Features: 3, Context: 2, Transforms: 3, Hidden: []int{16, 16}}, false},
	{"nsf-new", Config{Kind: NSF, Features: 3, Context: 2, Transforms: 3, Hidden: []int{16, 16}, Bins: 6}, false},
	{"maf-random", Config{Kind: MAF, Features: 3, Context: 2, Transforms: 3, Hidden: []int{16, 16}}, true},
	{"nsf-random", Config{Kind: NSF, Features: 3, Context: 2, Transforms: 3, Hidden: []int{16, 16}, Bins: 6}, true},
	{"nsf-relu-nocontext", Config{Kind: NSF, Features: 2, Transforms: 2, Hidden: []int{12}, Bins: 4, Bound: 3, Activation: nn.ReLU}, true},
}

// pinValues computes, for one case, the values the pins hold: log-densities of fixed points
// (float64, and with the MADEs in float32 on the Go micro-tile), the forward map and the
// inverse with their log-determinants, samples for a seed (one context, one per row of
// contexts, and in float32), and the losses and log-densities of two Adam steps (which go
// through every backward pass).
func pinValues(t *testing.T, c pinCase) map[string][]float64 {
	t.Helper()
	rng := rand.New(rand.NewPCG(21, 22))
	f, err := New(rng, c.cfg)
	if err != nil {
		t.Fatal(err)
	}
	if c.random {
		for _, p := range f.Params() {
			for i := range p.Data {
				p.Data[i] = 0.25 * rng.NormFloat64()
			}
		}
	}
	D, C := c.cfg.Features, c.cfg.Context
	theta := mat.NewDense(4, D, nil)
	for i := 0; i < 4; i++ {
		for j := 0; j < D; j++ {
			theta.Set(i, j, 1.5*math.Sin(float64(3*i+j+1)))
		}
	}
	theta.Set(3, 0, 4.5)  // beyond the spline's bound in the case of bound 3, inside 5
	theta.Set(2, 1, -6.0) // beyond every bound: the linear tail
	ctx := make([]float64, C)
	for j := range ctx {
		ctx[j] = 0.7 - 0.4*float64(j)
	}
	out := map[string][]float64{}
	var err2 error
	if out["logprob"], err2 = f.LogProbValues(theta, ctx); err2 != nil {
		t.Fatal(err2)
	}
	s, err := f.Sample(rand.New(rand.NewPCG(23, 24)), 4, ctx)
	if err != nil {
		t.Fatal(err)
	}
	out["sample"] = s.RawMatrix().Data
	if C > 0 {
		contexts := mat.NewDense(3, C, nil)
		for i := 0; i < 3; i++ {
			for j := 0; j < C; j++ {
				contexts.Set(i, j, math.Cos(float64(2*i+j)))
			}
		}
		s, err := f.SampleEach(rand.New(rand.NewPCG(25, 26)), contexts)
		if err != nil {
			t.Fatal(err)
		}
		out["sample-each"] = s.RawMatrix().Data
	}
	{
		tp := nn.NewTape()
		n := 4
		var cx *nn.Tensor
		if C > 0 {
			cx = tp.RepeatRows(tp.Const(1, C, ctx), n)
		}
		z, ld := f.Forward(tp, tp.FromDense(theta), cx)
		out["forward-z"] = append([]float64(nil), z.Data...)
		out["forward-logdet"] = append([]float64(nil), ld.Data...)
		zz := tp.New(n, D)
		for i := range zz.Data {
			zz.Data[i] = 1.2 * math.Sin(float64(5*i+1))
		}
		th, ild := f.Inverse(tp, zz, cx)
		out["inverse-theta"] = append([]float64(nil), th.Data...)
		out["inverse-logdet"] = append([]float64(nil), ild.Data...)
	}
	restore := useFloat32GoTile()
	out["logprob-f32"] = logProb32(f, theta, ctx)
	out["sample-f32"] = sample32(f, rand.New(rand.NewPCG(27, 28)), 4, ctx)
	restore()

	opt := nn.NewAdam(f.Params(), 1e-2)
	tp := nn.NewTape()
	srng := rand.New(rand.NewPCG(29, 30))
	for step := 0; step < 2; step++ {
		th, cx := tp.New(8, D), tp.New(8, max(C, 1))
		for i := range th.Data {
			th.Data[i] = 1.5 * srng.NormFloat64()
		}
		for i := range cx.Data {
			cx.Data[i] = srng.NormFloat64()
		}
		if C == 0 {
			cx = nil
		}
		loss := tp.Neg(tp.Mean(f.LogProb(tp, th, cx)))
		tp.Backward(loss)
		out["train-loss"] = append(out["train-loss"], loss.Item())
		opt.Step()
		opt.ZeroGrad()
		tp.Reset()
	}
	if out["trained-logprob"], err2 = f.LogProbValues(theta, ctx); err2 != nil {
		t.Fatal(err2)
	}
	return out
}

// logProb32 evaluates log q(θ | ctx) on a gradient-free tape with the MADEs in float32.
func logProb32(f *Flow, theta *mat.Dense, ctx []float64) []float64 {
	tp := nn.NewTape()
	tp.NoGrad = true
	n, _ := theta.Dims()
	var cx *nn.Tensor
	if len(ctx) > 0 {
		cx = tp.RepeatRows(tp.Const(1, len(ctx), ctx), n)
	}
	return append([]float64(nil), f.Eval(EvalConfig{Float32: true}).LogProb(tp, tp.FromDense(theta), cx).Data...)
}

// sample32 draws n samples through a bound inverter with the MADEs in float32.
func sample32(f *Flow, rng *rand.Rand, n int, ctx []float64) []float64 {
	tp := nn.NewTape()
	tp.NoGrad = true
	if len(ctx) == 0 {
		ctx = nil
	}
	z := tp.New(n, f.Config().Features)
	for i := range z.Data {
		z.Data[i] = rng.NormFloat64()
	}
	return append([]float64(nil), f.Eval(EvalConfig{Float32: true}).Inverter(ctx).Map(tp, z, nil).Data...)
}

// TestPinnedValues compares log-densities, samples and two training steps of MAFs and NSFs
// with the values the code gave when they were pinned (before flows were built from the
// transform interface): a refactoring that changes a single bit fails. The bits are those
// of the package's own product kernels (AVX2 and AVX-512 give the same), so other builds
// (gonum's or OpenBLAS's products sum in another order) are held to 1e-9 relative instead.
// The float32 evaluations run on the Go micro-tile, whose bits every CPU gives.
func TestPinnedValues(t *testing.T) {
	for _, c := range pinCases {
		got := pinValues(t, c)
		want, ok := pinned[c.name]
		if !ok {
			t.Fatalf("%s: no pinned values", c.name)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d kinds of values, %d pinned", c.name, len(got), len(want))
		}
		for key, w := range want {
			g := got[key]
			if len(g) != len(w) {
				t.Fatalf("%s %s: %d values, %d pinned", c.name, key, len(g), len(w))
			}
			exact := exactProducts()
			for i := range w {
				if exact && math.Float64bits(g[i]) != math.Float64bits(w[i]) {
					t.Errorf("%s %s[%d] = %x, pinned %x", c.name, key, i, g[i], w[i])
				} else if !exact && !(math.Abs(g[i]-w[i]) <= 1e-9*max(1, math.Abs(w[i]))) {
					t.Errorf("%s %s[%d] = %v, pinned %v (products of this build: within 1e-9)", c.name, key, i, g[i], w[i])
				}
			}
		}
	}
}

// pinned holds the values of pinValues computed by the code before flows were built from
// transform.Univariate (commit 538cae7), as hexadecimal floats: every bit counts. The MAFs'
// float32 log-densities and samples were pinned again when tanh MADEs gained their float32
// path (before, they fell back to float64): within 4e-8 relative of the float64 log-densities.
var pinned = map[string]map[string][]float64{
	"maf-new": {
		"forward-z":       {0x1.2c35a17c60e5dp+00, 0x1.61142c1276b37p+00, 0x1.3deba3fc1d1ep-02, -0x1.0a4094cab5ef8p+00, -0x1.48885579fa646p+00, -0x1.b583dfb89d9a2p-02, 0x1.b84c91ae66d7p-01, -0x1.7ecdb58a3ae82p+02, 0x1.4c6c1262aeb04p-01, 0x1.09157d9e7d24cp+02, -0x1.9e57737328b61p+00, -0x1.0df945d0b6513p-02},
		"forward-logdet":  {-0x1.9bdb95591627ap-02, -0x1.4ee69332f0bc7p-02, -0x1.5c4e5bbd10511p-02, -0x1.7c032b4e6bebcp-02},
		"inverse-theta":   {0x1.11ff3393c8359p+00, -0x1.60cf5b71721ebp-02, -0x1.cfd575920715fp+00, -0x1.ac3c29010a28ep-02, 0x1.f31bf466dfc17p-01, 0x1.319c84741e94dp+00, -0x1.1170f73c55a88p-01, -0x1.4da8e8b8ce90ep+00, -0x1.b153bb01d943ep-03, 0x1.260c8a1d6816bp+00, 0x1.8f67ea4441ef7p-01, -0x1.0be71ae05629bp+00},
		"inverse-logdet":  {0x1.6189a7295027ep-02, 0x1.8b31de345c8bp-02, 0x1.5afa36a66c404p-02, 0x1.7ebb5697bbea1p-02},
		"logprob":         {-0x1.3623d2fd2b184p+02, -0x1.2286880571432p+02, -0x1.590c4b37eaf09p+04, -0x1.a19c13d78e18ap+03},
		"sample":          {-0x1.6537bce184b05p-03, 0x1.cee67a5b9cbbbp-02, -0x1.5e419f7464ccep-01, -0x1.f8690d44d83dbp-01, -0x1.3869a834689cdp-05, -0x1.67cf912634f7dp-06, -0x1.20cbbc256aa56p+00, 0x1.5f302fce9e816p-10, -0x1.48d117806eb9fp+00, 0x1.daf244a2433c4p-01, 0x1.34829c0856f78p+00, 0x1.9a86134f896b2p-01},
		"sample-each":     {0x1.d1ef149f65742p+00, -0x1.ad4fffb69d242p-02, -0x1.86217ccd839afp-01, 0x1.269e182043eefp-02, -0x1.332aaebcbed5p-01, 0x1.13bbf3cde3471p-01, -0x1.8b89937ccf70bp-01, 0x1.2c767a8804281p+01, 0x1.ebce36e9b9986p-01},
		"logprob-f32":     {-0x1.3623d2da7544fp+02, -0x1.22868829ed332p+02, -0x1.590c4bb8878a3p+04, -0x1.a19c146580092p+03},
		"sample-f32":      {0x1.c7c1972e77776p+00, 0x1.7390ba3f6fccap-01, -0x1.06e962844a447p-04, 0x1.dfa964cc5800dp-01, 0x1.228302c4f829bp+01, -0x1.293a258c6757cp+00, -0x1.171c4cdd81e82p+00, 0x1.b7d5d667bf486p-03, -0x1.7297b0e5d6b08p-01, -0x1.4b08168b900cbp-04, -0x1.448a64e71d9f2p-05, 0x1.f465f13b6dd88p-01},
		"train-loss":      {0x1.4250fda033dbfp+02, 0x1.6f4a6af7eb548p+02},
		"trained-logprob": {-0x1.3a78328bc8633p+02, -0x1.20ef4ddcab75ap+02, -0x1.002dce9c61bfep+04, -0x1.7fdfa0a027d34p+03},
	},
	"nsf-new": {
		"forward-z":       {0x1.5ad70654ee4eep+00, 0x1.7a4889f11c9bap-02, -0x1.818f7432864dcp-04, -0x1.0e8f3c7a0f56ep+00, -0x1.1eec21481bf5bp+01, -0x1.843286e484142p-01, 0x1.2e33820f1d2a4p+00, -0x1.8p+02, 0x1.232e4d4c52b6ep-02, 0x1.09664000cec41p+02, -0x1.227ca6a1a465ep+01, -0x1.765608bfa329ep+00},
		"forward-logdet":  {-0x1.832ecea451bcp-07, -0x1.efe92f285d94ep-03, 0x1.ecb15fbdec27p-05, 0x1.4a2a1f30af5fep-02},
		"inverse-theta":   {0x1.a9a59ba4dd6c7p-01, 0x1.ecfd0b07f76f5p-01, -0x1.57d84c03123d8p-01, -0x1.f9f9d300694d8p-03, 0x1.b6035c562294p+00, 0x1.fd0cc078b3221p-01, -0x1.01d3284265dccp-01, 0x1.6b50cb2647521p-06, 0x1.489558fac6e9p-04, 0x1.c5c95f249401ap-01, 0x1.94232d813512ap+00, -0x1.61c1a6176db8p-02},
		"inverse-logdet":  {-0x1.809d7776e6d68p-01, 0x1.20a36d12f496p-06, 0x1.d15acc387ad02p-01, -0x1.0cab98da2eeefp+00},
		"logprob":         {-0x1.e12a16044b6aap+01, -0x1.96dcc64e8f6adp+02, -0x1.56f117ac8bc0bp+04, -0x1.d5a8ff2e06f6p+03},
		"sample":          {0x1.9b9fba791161cp-04, 0x1.6c5b5cee80e8bp+00, -0x1.274c5151804ecp-02, -0x1.f1ca555bad427p-01, 0x1.38c5932199bcfp+00, 0x1.725c0e384a88p-03, -0x1.1c054722c2e87p+00, 0x1.3f0daeaa4e3a5p+00, -0x1.50dd321509948p-01, 0x1.751447929ff93p-01, 0x1.efd9ecd02d418p+00, 0x1.c6126f037745p-01},
		"sample-each":     {0x1.e1caafe3fa83bp+00, 0x1.c570b4a0b579dp-01, -0x1.6fec8e5fe06fp-04, 0x1.a9f0034aba364p-02, 0x1.a24fb35df711p-02, 0x1.9ec48af6e836p-01, -0x1.6c4569770176cp-01, 0x1.cc03a24e2491p+01, 0x1.a9fdca12e2b3bp-01},
		"logprob-f32":     {-0x1.e12a1592c7c4ep+01, -0x1.96dcc63719852p+02, -0x1.56f117a165424p+04, -0x1.d5a8ff1deb30fp+03},
		"sample-f32":      {0x1.dfa27f9cca6d2p+00, 0x1.894f771a627fp+00, 0x1.fdaa3b5057883p-02, 0x1.7a8c884aafb0bp-01, 0x1.95db64ea8d8bep+01, -0x1.c2466a51957b8p-02, -0x1.11343c5d8e3bcp+00, 0x1.5650fa9af0307p+00, -0x1.9834d1edcf1d4p-02, 0x1.732e4c6465db4p-03, 0x1.327a8fbe86323p+00, 0x1.da1a354e0ab1fp-01},
		"train-loss":      {0x1.a49745b19a771p+02, 0x1.6f858119f4146p+02},
		"trained-logprob": {-0x1.a41e31b31856cp+02, -0x1.322ea0df72d79p+02, -0x1.6c1ba6addf92fp+04, -0x1.cea25fe6d02c8p+03},
	},
	"maf-random": {
		"forward-z":       {0x1.bc8bb785757b8p+00, 0x1.32aec72cd203cp+00, 0x1.3dfdbab70c05cp-02, -0x1.47a07dfa25264p+01, -0x1.0f234ad7a6ac8p+01, -0x1.2153220c5675ap-03, 0x1.0c6cbadaffab2p+01, -0x1.a8472f8875c4dp+02, 0x1.d0846d0353b84p-01, 0x1.19f0ee1022685p+03, -0x1.f0af6185b7493p+00, -0x1.7f601bccf7473p+00},
		"forward-logdet":  {0x1.0d25d7518e89cp+00, 0x1.13c288d0403d3p+00, 0x1.52061cef827d6p+00, 0x1.4d53cebcd232ep+00},
		"inverse-theta":   {0x1.8b4d266a37962p-01, -0x1.3cab75874ddb1p-04, -0x1.889be6ef29368p-01, 0x1.95783f27416ecp-06, 0x1.53e57cbe03c27p+00, 0x1.cccf484b04b55p-02, -0x1.5957f7179b8c5p-04, -0x1.7ac2fe3c83554p-01, -0x1.00af84104c999p-02, 0x1.c0d98ff05a33ep-01, 0x1.f8e8e0192835ap-01, -0x1.b396afd4651f2p-02},
		"inverse-logdet":  {-0x1.2561de183a02p+00, -0x1.ed6a961216fa1p-01, -0x1.206a1a27071bcp+00, -0x1.123cbfadcf8eap+00},
		"logprob":         {-0x1.fd4f324011506p+01, -0x1.cd5e18c7ac8a1p+02, -0x1.a055b4c9c5a86p+04, -0x1.5a2d47644f4c5p+05},
		"sample":          {0x1.659e9efcbe57ap-03, 0x1.9533e9e3abb13p-01, -0x1.f6fdd59885b65p-02, -0x1.0e3fb7afef167p-02, 0x1.cdf511f6a9832p-02, -0x1.18b591f11aafap-02, -0x1.47f3aaf1f91b2p-02, 0x1.e5e9b151a9a11p-02, -0x1.08e7a3c32e11cp+00, 0x1.7c77f5a70495dp-01, 0x1.6d974076779ccp+00, 0x1.a90dcc4d17235p-02},
		"sample-each":     {0x1.215ca6c2bed0cp+00, -0x1.319648ebb002p-03, -0x1.75be9a2ea71b3p-03, 0x1.80522dca8b799p-06, -0x1.170439445d6d6p-01, 0x1.52f2249d0c677p-02, -0x1.f66d58b2d1dcap-03, 0x1.899eda26112e3p+01, -0x1.ac3ec577e8f65p-03},
		"logprob-f32":     {-0x1.fd4f321e048ep+01, -0x1.cd5e1877d260cp+02, -0x1.a055b3c751f6cp+04, -0x1.5a2d474d8668ap+05},
		"sample-f32":      {0x1.2b552606ff977p+00, 0x1.d8a4b926d902p-01, 0x1.e7f6067ce4f04p-04, 0x1.ac470a82a097p-01, 0x1.3189591c07fa1p+01, -0x1.29ad516e2af06p-01, -0x1.33ab9a77f831ep-02, 0x1.577982a374a5bp-01, -0x1.6c37e725a9975p-01, 0x1.43b6a1939a70bp-03, 0x1.75ff515292e88p-02, 0x1.a980c7a6a566fp-02},
		"train-loss":      {0x1.ee009766f70b6p+02, 0x1.05f304f4425ebp+03},
		"trained-logprob": {-0x1.0b9b9208d1043p+02, -0x1.7a3f47bfc9517p+02, -0x1.4d4f66492d3dep+04, -0x1.196a3e9e0f7e2p+05},
	},
	"nsf-random": {
		"forward-z":       {-0x1.b45e725abf762p-01, 0x1.1de51ec1f8b2cp+00, -0x1.5bfe209429034p-01, -0x1.0c05c88a5ad65p+02, -0x1.0930d2202ac8bp+00, 0x1.04723e6e128eap-02, -0x1.ae4ebec850ab8p+00, -0x1.8p+02, 0x1.b52920a70540ep-02, 0x1.1cb92d1567ef2p+02, -0x1.82f9f914cddd6p+00, -0x1.6418570851e9bp+00},
		"forward-logdet":  {0x1.874ebf0c89196p-02, -0x1.a407f59df7762p+01, 0x1.62730d675c064p-01, -0x1.40c0297b0e5d4p+00},
		"inverse-theta":   {0x1.229931bfe8cf2p+01, 0x1.3dd73094ea436p-02, -0x1.87daed80b4c18p-01, 0x1.3462b49ec66cap+01, 0x1.3e48f950bafa8p+00, 0x1.f76d8c6ea6097p+01, 0x1.8f879544e80f9p+00, -0x1.3faccfd59a1b8p-01, 0x1.06b8f80f99236p-01, 0x1.31773e50b78cbp+01, 0x1.28956dc72b52dp+00, 0x1.f746413e39d24p-03},
		"inverse-logdet":  {-0x1.628f83d6a32cp-07, -0x1.315f346faae0fp-02, 0x1.461874f323e1p-03, -0x1.d531a1af47c28p-05},
		"logprob":         {-0x1.cbd546755d1e9p+01, -0x1.ec0a48caf91b2p+03, -0x1.5917fa027510bp+04, -0x1.003ff21de6265p+04},
		"sample":          {0x1.b0ef1714994b2p+00, 0x1.00cd4ae799d23p+00, 0x1.c86c8abf3bbf2p-02, 0x1.9116bd42a7451p+00, 0x1.4a7c3dff8df8ep-01, 0x1.aedd987957592p-01, 0x1.37df69ec50f3cp+00, 0x1.3398843c6c59ep-01, -0x1.75ceee97afe52p-01, 0x1.5eb2a146e9d4p+01, 0x1.853e8e00c924p+00, 0x1.7436f2b8eabb4p+01},
		"sample-each":     {0x1.47ecc4ce809c4p+01, 0x1.60397c765c2cp-05, 0x1.ffe212fd1e0c8p-02, 0x1.4dc66b94e8894p+01, 0x1.17aa04ecb7463p+00, 0x1.0dbf8d840933cp-01, 0x1.239016384728p+01, 0x1.2716b8e074a89p+02, 0x1.38d0ba2d7cc4cp-01},
		"logprob-f32":     {-0x1.cbd54b319be1ep+01, -0x1.ec0a48c31edfbp+03, -0x1.5917fac54080cp+04, -0x1.003ff1e3a31ap+04},
		"sample-f32":      {0x1.69eb9a6c57b7fp+01, 0x1.0a72e9dd7fc4fp+00, 0x1.1f903e408ba3ep+00, 0x1.13a0b9ff309bep+01, 0x1.b40b70291261p+01, 0x1.a96a1bed1d08cp-03, 0x1.345dd3c4a861ap+00, 0x1.afa908225e6bap-01, 0x1.ed06b2d50c798p-04, 0x1.3937f68692e6ep+01, 0x1.c23a28dd5fa94p-02, 0x1.96b60613d5a9cp+01},
		"train-loss":      {0x1.9679a83c00b99p+03, 0x1.89ad10c4c257p+03},
		"trained-logprob": {-0x1.684b1728ed2bep+02, -0x1.6f8fca2ae5652p+03, -0x1.5c6993bcc43dcp+04, -0x1.0b4b9fd24e8p+04},
	},
	"nsf-relu-nocontext": {
		"forward-z":       {0x1.569253c7568a4p+00, 0x1.f9316d15b7069p+00, -0x1.52735d69198f3p+00, -0x1.4f992272bf506p+00, -0x1.8p+02, 0x1.48cdf45432a49p+01, -0x1.48c80d67e56bep+01, 0x1.2p+02},
		"forward-logdet":  {-0x1.391cb8645f4ap-01, -0x1.b5c7270c3978fp-02, -0x1.0a7db6160e639p+01, -0x1.a77c98bb5c9fep+00},
		"inverse-theta":   {-0x1.c0da454f273adp-02, 0x1.5945ed36dee7cp-01, -0x1.5b0355d63a128p-03, -0x1.169fbf1d72ee6p+00, 0x1.da08408760ee8p-03, 0x1.82f49a00bc7fcp-01, -0x1.1d682ebb75776p+00, -0x1.73b4ef1d70e2ap-01},
		"inverse-logdet":  {0x1.76096ddee5f8bp-02, -0x1.55784c995262cp-04, -0x1.be510acddaba1p-01, -0x1.77fa58a4c0982p+00},
		"logprob":         {-0x1.52af48dafb40ep+02, -0x1.ffd231bef344dp+01, -0x1.9381b58445c51p+04, -0x1.0ea7e32a00668p+04},
		"sample":          {0x1.c3a7d7b799048p-04, -0x1.74efe65a1e7cep-02, -0x1.c5247f19aefa6p-01, -0x1.69ea77670c682p-01, -0x1.42f67360cf332p-03, -0x1.30a31eeeba9b6p-02, 0x1.84cdf81a7a36p-06, -0x1.9da750b92e76fp-01},
		"logprob-f32":     {-0x1.52af48be2e0c7p+02, -0x1.ffd23215b0165p+01, -0x1.9381b516dc8c4p+04, -0x1.0ea7e32f5266fp+04},
		"sample-f32":      {0x1.0fc5d818cfddcp-03, 0x1.696f78cfcaa85p+00, 0x1.045b43ea74cd8p-02, -0x1.32ff629734cdp-03, -0x1.c43dc97992b32p-01, 0x1.121c305f2237p+01, 0x1.678c601997468p-04, -0x1.877ec28c207a2p-01},
		"train-loss":      {0x1.13f1d8e8a6977p+02, 0x1.1db532e5235cbp+02},
		"trained-logprob": {-0x1.3b1026d2e65f6p+02, -0x1.e18c0f1646f0bp+01, -0x1.8cb3d0b9ae5d4p+04, -0x1.0ecefb4ecf1aep+04},
	},
}
