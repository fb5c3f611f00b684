package calib

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// ordinaryEnergyCases are inputs of EnergyScore at ordinary scales (1e-3 … 1e5), d = 1 … 4,
// β = 0.5, 1, 1.5, with a repeated draw (a zero distance).
func ordinaryEnergyCases() []energyCase {
	rng := rand.New(rand.NewPCG(41, 42))
	var out []energyCase
	for _, scale := range []float64{1e-3, 1, 1e5} {
		for _, d := range []int{1, 2, 4} {
			for _, beta := range []float64{0.5, 1, 1.5} {
				draws := mat.NewDense(7, d, nil)
				for i := range 7 {
					for j := range d {
						draws.Set(i, j, scale*rng.NormFloat64())
					}
				}
				draws.SetRow(6, draws.RawRowView(0))
				theta := make([]float64, d)
				for j := range theta {
					theta[j] = scale * (0.3 + rng.NormFloat64())
				}
				out = append(out, energyCase{draws, theta, beta})
			}
		}
	}
	return out
}

// ordinaryNormCases are inputs of normTerm at ordinary scales, with and without a scaling,
// β = 0.5, 1, 1.5, and a zero vector.
func ordinaryNormCases() []normCase {
	rng := rand.New(rand.NewPCG(43, 44))
	vec := func(d int, s float64) []float64 {
		v := make([]float64, d)
		for j := range v {
			v[j] = s * rng.NormFloat64()
		}
		return v
	}
	var out []normCase
	for _, s := range []float64{1e-3, 1, 1e5} {
		for _, beta := range []float64{0.5, 1, 1.5} {
			out = append(out, normCase{v: vec(3, s), e: vec(3, 1), beta: beta, c: 0.7, sign: 1})
			out = append(out, normCase{v: vec(3, s), scale: []float64{2, 0.5, 3}, e: vec(3, 1), beta: beta, c: 1.3, sign: -0.5})
		}
	}
	return append(out, normCase{v: []float64{0, 0}, e: []float64{1, 1}, beta: 1, c: 1, sign: 1})
}

// TestEnergyNormOrdinaryBits: at ordinary scales EnergyScore and normTerm return the very bits
// they returned before the scaled norm was added for extreme scales (recorded then), so that
// saved results stay valid. The bits are amd64's: math.Pow calls math.Exp and math.Log, which
// are assembly there and Go code elsewhere, rounding some results differently in the last bit
// (the file is amd64-only; on every platform TestEnergyScoreExtremeScales and
// TestNormTermExtremeScales check the values against closed forms within tolerances).
func TestEnergyNormOrdinaryBits(t *testing.T) {
	energy := []uint64{
		0xbf8db639fa3560be,
		0xbf2bc580c2c09bf8,
		0xbee69dd1a89c7810,
		0xbf89d5387bc9e79e,
		0xbf54209b29391c8b,
		0xbf10e224afec546b,
		0xbf97c1613f69dd6f,
		0xbf5522b82c4ea8db,
		0xbf0b459c67079c48,
		0xbfe00be911e8ee76,
		0xbfe6ca1cb8ed5c67,
		0xc00ad1d09ee922c9,
		0xbfd6534d3788776e,
		0xbfd1f06f0172a6fc,
		0xc00c5a53904b33f4,
		0xbfef3ed6c1b0dbf0,
		0xbfe157b706cfa3ee,
		0xc001a729ce24c20f,
		0xc060e115b5d60f1e,
		0xc0e869b3fdc98582,
		0xc1411217f9bcb368,
		0xc06f2e348552cc7d,
		0xc0dda1459cf8bc28,
		0xc17009c3227d1574,
		0xc0751cd1066f4b5e,
		0xc10ade53802eced2,
		0xc19ab0d1dba1d9c1,
	}
	norm := []struct {
		val    uint64
		gL, gb []uint64
	}{
		{0x3fa7e79d952c445f, []uint64{0x3fd66566cc08e087, 0x0000000000000000, 0x0000000000000000, 0xbfda8f839e439e18, 0x3ff46716cc0c3e7e, 0x0000000000000000, 0x3ffe2fe7d8da2480, 0xc017303d1fe0ff95, 0x401dc42c968f798f}, []uint64{0x3ff56117cf5d94e1, 0xbff95acd448bf041, 0x401cd10adb5f8038}},
		{0x3fb1bcd3b233bbaf, []uint64{0x40062e09b52b3f02, 0x0000000000000000, 0x0000000000000000, 0xbfa07b966584d4da, 0x3f6dc7e9f316554f, 0x0000000000000000, 0xc0250d0fbe895919, 0x3ff304746468cf58, 0xc017edc6e34cf540}, []uint64{0x400b92f9ff5eaeea, 0xbfa47dd21c85599f, 0xc02a2bb8132322e7}},
		{0x3f5ede3e11628d8a, []uint64{0x3fe1f0939cc63c43, 0x0000000000000000, 0x0000000000000000, 0x3fc10f3ed5ba47a1, 0xbfa03fc3bdfbbdb6, 0x0000000000000000, 0xbfe5042802bb8b85, 0x3fc4048dbea1eb8c, 0x3ff360b2f05888a0}, []uint64{0xbfdcbee55c397852, 0xbfbb55d665e7d209, 0x3fe0d66f7b3c6ef9}},
		{0x3f67c79f0c8c8779, []uint64{0x3fda41967c0f88a4, 0x0000000000000000, 0x0000000000000000, 0xbfa2be8345e5454e, 0x3fb40bff5b8f3d62, 0x0000000000000000, 0x3fd98704ee2aa957, 0xbfeb4d2fd5282226, 0x3fcbca71f4503dd7}, []uint64{0x3ff0b8664a4e3dcc, 0xbfb7df8493198c36, 0x3ff04197135d0bcf}},
		{0x3ef8f80e0700cbdf, []uint64{0x3f673aee93470ae0, 0x0000000000000000, 0x0000000000000000, 0xbf718c566461c8e8, 0x3f6c770ec3eeb05e, 0x0000000000000000, 0xbf78ffa3dc4c756e, 0x3f7446745979ed89, 0x3f910bf20521e93a}, []uint64{0xbf85fd912af7ac7c, 0x3f909c9944c36f90, 0x3f97aa1daca6a568}},
		{0x3f2c43e3fb884b72, []uint64{0xbfa582527f88fe93, 0x0000000000000000, 0x0000000000000000, 0xbf60109e03a06d2e, 0x3f7aa725e3ab4b49, 0x0000000000000000, 0xbfa576aad9487883, 0x3fc1ce09a5c4de6c, 0xbfba422657bd5b2b}, []uint64{0xbfb8a0dac8bb253d, 0xbf7265087a174e08, 0xbfb89382715f15ca}},
		{0x3ff2c42534baf127, []uint64{0x3fd1cfda3bafda68, 0x0000000000000000, 0x0000000000000000, 0x3fe7e6354a26016d, 0xbfb3acd65cdc94ec, 0x0000000000000000, 0x3f9ce80ed1f515d1, 0xbf67cc1ff6736edb, 0x3f8a268b6d0f7928}, []uint64{0xbfbaa8a4b6bb94d3, 0xbfd1e2808f4c896a, 0xbf85a1c31879ed86}},
		{0x3ffe533eaba959f4, []uint64{0xbfbab764102c7b5b, 0x0000000000000000, 0x0000000000000000, 0x3f8f8e080846c655, 0xbf77f5bcaf3ac726, 0x0000000000000000, 0xbfe08d78a8f60a51, 0x3fc9231db8a8d983, 0xbfa19870dc45a90d}, []uint64{0x3fb910fa013b1999, 0xbf8d9b1dbf60f593, 0x3fdf0f8371e6ea94}},
		{0x3ff50a2f335a7fff, []uint64{0xbfe3fc5e6c403f9f, 0x0000000000000000, 0x0000000000000000, 0xbfc200e89fc66262, 0x3fb4b11e31f28e21, 0x0000000000000000, 0x3fd825133bd3eba7, 0xbfcbc00aed14d8be, 0xbfb0cadc909200e5}, []uint64{0xbfe2d3b01c58c394, 0xbfc0f5a757659a51, 0x3fd6bea7cf9e0a14}},
		{0x4015fd5048a63270, []uint64{0x3fd4372896ff62b9, 0x0000000000000000, 0x0000000000000000, 0xbfa054d1201d702a, 0xbf8c358d1a68413a, 0x0000000000000000, 0xbff2dd0aa6f05a3f, 0xbfe04a9decc1b72d, 0x3fed83f050b55a8d}, []uint64{0xbfdeadb735ba1282, 0x3fa8c8b911f2c290, 0x3ffca074a2c3d6e9}},
		{0x400d77ee98a5ad10, []uint64{0x3fc8a04446d317c0, 0x0000000000000000, 0x0000000000000000, 0x3fb7e5fffd1f7272, 0x3fbd7c58acbb1cf5, 0x0000000000000000, 0xbfbd0af59f8d27a2, 0xbfc1ea99db04b401, 0xbff53e77c7938c28}, []uint64{0x3ff49ee2b4867707, 0x3fe402ea3517fef9, 0xbfe851ac2ca3068e}},
		{0x3ff16181e23c07d6, []uint64{0x3f802174a838a0c5, 0x0000000000000000, 0x0000000000000000, 0xbf09c9a49d136192, 0xbf7be880832450bc, 0x0000000000000000, 0x3f817dcdd74f0d0d, 0x3ff2ee0493b78325, 0x400198e411456f12}, []uint64{0x3ff9fcb32fb1c180, 0xbf84c5bda640adae, 0x3ffc2de6cce7bb66}},
		{0x4075d1c74efcd6ba, []uint64{0xbf1fc840b169d863, 0x0000000000000000, 0x0000000000000000, 0x3f0b1512e745ea88, 0xbf41d580ec56d872, 0x0000000000000000, 0x3ec86584d0f9b0f4, 0xbf0010bdc184e56c, 0x3f03b2db5cfb502b}, []uint64{0x3f4e371c5d00f461, 0xbf39bf40963c5a6a, 0xbef731988711837b}},
		{0x4082b0b1d5ddab20, []uint64{0x3f4cd29bb52ff7f1, 0x0000000000000000, 0x0000000000000000, 0xbf15683e738ca9d0, 0xbf176ed26eed16d3, 0x0000000000000000, 0x3f3bf2831c4dda0f, 0x3f3e9785585e2f53, 0x3f39fd64569c2d75}, []uint64{0xbf4ff33dcae31572, 0x3f17bae400d706a2, 0xbf3efad448113f97}},
		{0x4105b7d8fb5c72ce, []uint64{0xbfa963e99b99e014, 0x0000000000000000, 0x0000000000000000, 0xbf750c77cbc2ece5, 0xbfa2c355a6b0a39a, 0x0000000000000000, 0xbfb429c273029aac, 0xbfe1f93e937a1019, 0xbfe5b542bec6d8c1}, []uint64{0x3fd7d561ab498b53, 0x3fa3c21550ca95d8, 0x3fe2ed466df1fd59}},
		{0x4117a52997b5ffd1, []uint64{0xbff6e8cef2be8c9b, 0x0000000000000000, 0x0000000000000000, 0x3f2ffa87414b4d94, 0xbf15659c90a0f54e, 0x0000000000000000, 0xbfd333da0ad19178, 0x3fb9b2663bd62e41, 0xbfc91e4f4fe1cd08}, []uint64{0xbff499969205e5ec, 0x3f2cc1428a5a387a, 0xbfd1444b45442b56}},
		{0x418e793a0509a81c, []uint64{0x3ffc43d9cf099da7, 0x0000000000000000, 0x0000000000000000, 0xc01ad7897245c388, 0x403b67dfb1f7d43d, 0x0000000000000000, 0xbff3843667b4db62, 0x4013ed287d83b788, 0x3ff42322e40fce93}, []uint64{0xc05a508c2f94ee0e, 0x4078fd5f71e124d0, 0x40522b741759cb02}},
		{0x4199eff36e9bda99, []uint64{0xc026adcb9f9856e5, 0x0000000000000000, 0x0000000000000000, 0xc007b90973747c1c, 0x404a6132bafa0a69, 0x0000000000000000, 0xc05a126fc79804d9, 0x409cfdf3e9bd346e, 0xc090cf98365ab162}, []uint64{0xc062787e7fe287d6, 0xc0435225b7d296a6, 0xc0953bf420484086}},
		{0x0000000000000000, []uint64{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000}, []uint64{0x0000000000000000, 0x0000000000000000}},
	}
	for i, c := range ordinaryEnergyCases() {
		if got := EnergyScore(c.draws, c.theta, c.beta); math.Float64bits(got) != energy[i] {
			t.Errorf("energy case %d: %v (%#016x), want %v", i, got, math.Float64bits(got), math.Float64frombits(energy[i]))
		}
	}
	for i, c := range ordinaryNormCases() {
		val, gL, gb := c.eval()
		if math.Float64bits(val) != norm[i].val || !sameBits(gL, norm[i].gL) || !sameBits(gb, norm[i].gb) {
			t.Errorf("norm case %d: value %v, gL %v, gb %v differ from the recorded bits", i, val, gL, gb)
		}
	}
}

// sameBits reports whether v holds exactly the float64s whose bits are want.
func sameBits(v []float64, want []uint64) bool {
	if len(v) != len(want) {
		return false
	}
	for i, f := range v {
		if math.Float64bits(f) != want[i] {
			return false
		}
	}
	return true
}
