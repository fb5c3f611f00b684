package task

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/gosbi/gosbi/sbi/dist"
)

// TCSLCP is the two-parameter SLCP of the trust-crisis and BNRE benchmarks ("tc_slcp"): the
// two inferred parameters θ ~ U(−3,3)² set the scales s₁ = θ₁², s₂ = θ₂²; the mean is fixed
// at (0.7, −2.9) and the correlation ρ = tanh(u), u ~ U(−3, 3), is drawn inside the simulator
// (marginalized, so the likelihood is intractable); x holds 4 draws of N(m, [[s₁², ρs₁s₂],
// [ρs₁s₂, s₂²]]) flattened point by point.
func TCSLCP() Task {
	return &base{
		name: "tc_slcp", prior: dist.NewUniformCube(-3, 3, 2), paramLabels: labels("θ", 2), dataDim: 8,
		row: func(rng *rand.Rand, theta, x []float64) {
			s1, s2 := theta[0]*theta[0], theta[1]*theta[1]
			rho := math.Tanh(-3 + 6*rng.Float64())
			// The covariance is [[s₁², ρs₁s₂], [ρs₁s₂, s₂²]]: standard deviations s₁ and s₂.
			for k := 0; k < 4; k++ {
				z0, z1 := rng.NormFloat64(), rng.NormFloat64()
				x[2*k] = 0.7 + s1*z0
				x[2*k+1] = -2.9 + s2*(rho*z0+math.Sqrt(1-rho*rho)*z1)
			}
		},
	}
}

const (
	weinbergSamples = 20
	weinbergBeam    = 40.0 // beam energy in GeV (√s/2)
	weinbergMZ      = 90.0
)

// Weinberg is the Weinberg benchmark of the BNRE paper: the Fermi constant G_F ~ U(0.25, 2)
// sets the forward–backward asymmetry A = 2·tanh((√s − M_Z)/M_Z·10)·G_F with √s = 2·40 GeV
// and M_Z = 90; x holds 20 values of cos θ drawn on [−1, 1] from
// f(c) = (1 + c² + A·c)/(2·(1 + 1/3)) by rejection. The reference code accepts a proposal c
// when f(c)/m/m ≥ u (m = max of f on a 10,000-point grid), dividing by m twice; this is kept,
// since it changes the distribution of x where m < 1.
func Weinberg() Task {
	return &base{
		name: "weinberg", prior: dist.NewBoxUniform([]float64{0.25}, []float64{2}),
		paramLabels: []string{"G_F"}, dataDim: weinbergSamples,
		row: func(rng *rand.Rand, theta, x []float64) {
			a := 2 * math.Tanh((2*weinbergBeam-weinbergMZ)/weinbergMZ*10) * theta[0]
			f := func(c float64) float64 { return (1 + c*c + a*c) / (2 * (1 + 1.0/3)) }
			// f is a convex parabola, so its maximum on the grid (which holds ±1) is at an end.
			m := math.Max(f(-1), f(1))
			for k := range x {
				for {
					c := -1 + 2*rng.Float64()
					u := rng.Float64()
					if f(c)/m/m >= u {
						x[k] = c
						break
					}
				}
			}
		},
	}
}

const mg1Jobs = 50

// MG1 is the M/G/1 queue of the trust-crisis and BNRE benchmarks: θ ~ U([0,0,0], [10,10,1/3]);
// 50 jobs with service times U(θ₁, θ₂) and inter-arrival times Exp(rate θ₃); inter-departure
// times d₀ = s₀ + a₀, d_i = s_i + max(0, a_i − D_{i−1}) with a the arrival and D the departure
// times; x is the 0, 25, 50, 75 and 100th percentiles of d (linear interpolation, as numpy).
func MG1() Task {
	return &base{
		name: "mg1", prior: dist.NewBoxUniform([]float64{0, 0, 0}, []float64{10, 10, 1.0 / 3}),
		paramLabels: labels("θ", 3), dataDim: 5,
		row: func(rng *rand.Rand, theta, x []float64) {
			var idt [mg1Jobs]float64
			arrival, departure := 0.0, 0.0
			for i := 0; i < mg1Jobs; i++ {
				service := (theta[1]-theta[0])*rng.Float64() + theta[0]
				arrival += -math.Log(1-rng.Float64()) / theta[2]
				if i == 0 {
					idt[i] = service + arrival
				} else {
					idt[i] = service + math.Max(0, arrival-departure)
				}
				departure += idt[i]
			}
			s := idt[:]
			slices.Sort(s)
			for j := range x {
				pos := float64(j) / 4 * (mg1Jobs - 1)
				lo := int(math.Floor(pos))
				hi := min(lo+1, mg1Jobs-1)
				x[j] = s[lo] + (pos-float64(lo))*(s[hi]-s[lo])
			}
		},
	}
}

const (
	tcLVSteps = 1001 // int(50/0.05) + 1
)

// TCLotkaVolterra is the Lotka–Volterra benchmark of the BNRE paper ("tc_lotka_volterra"): the
// log-rates of the predators θ ~ U(−4, 1+10⁻⁵)² are inferred, the prey's two log-rates are
// drawn from the same prior inside the simulator (marginalized). With rates
// k = exp(θ₁, θ₂, θ₃, θ₄) and populations (x, y) = (predators, prey) starting at (50, 100),
// each of 1001 steps applies one event of a Markov jump process, chosen with probabilities
// ∝ (k₁xy, k₂x, k₃y, k₄xy): predator +1, predator −1, prey +1, prey −1. The state after
// each event is recorded; if all rates vanish (total ≤ 10⁻⁵) the remaining records stay 0, as
// in the reference code. x is 2×1001: the 1001 predator counts, then the 1001 prey counts.
func TCLotkaVolterra() Task {
	return &base{
		name: "tc_lotka_volterra", prior: dist.NewBoxUniform([]float64{-4, -4}, []float64{1 + 1e-5, 1 + 1e-5}),
		paramLabels: []string{"log k₁", "log k₂"}, dataDim: 2 * tcLVSteps,
		row: func(rng *rand.Rand, theta, x []float64) {
			var k [4]float64
			k[0], k[1] = math.Exp(theta[0]), math.Exp(theta[1])
			for j := 2; j < 4; j++ {
				k[j] = math.Exp(-4 + (5+1e-5)*rng.Float64())
			}
			clear(x)
			pred, prey := 50.0, 100.0
			for step := 0; step < tcLVSteps; step++ {
				xy := pred * prey
				r := [4]float64{k[0] * xy, k[1] * pred, k[2] * prey, k[3] * xy}
				total := r[0] + r[1] + r[2] + r[3]
				if total <= 1e-5 {
					break
				}
				u := rng.Float64() * total
				switch {
				case u < r[0]:
					pred++
				case u < r[0]+r[1]:
					pred--
				case u < r[0]+r[1]+r[2]:
					prey++
				default:
					prey--
				}
				x[step] = pred
				x[tcLVSteps+step] = prey
			}
		},
	}
}

const (
	sirGrid  = 50
	sirSteps = 100 // measurement time 1.0 / step 0.01
)

// SpatialSIR is the spatial SIR benchmark of the BNRE paper: the infection and recovery rates
// (β, γ) ~ U(0,1)². A 50×50 lattice starts with 1 + Poisson(3) infections at uniformly drawn
// cells (repeats allowed), then for 100 steps, all cells at once: a susceptible cell becomes
// infected with probability β·(infected cells in its 3×3 neighbourhood)/8, and an infected cell
// recovers with probability γ. As in the reference code, a cell that recovers stays infected
// (and infectious) for one more step; the run stops early when no cell is infected. x is the
// final state as three 50×50 indicator images, S then I then R, each row-major (3×50×50).
func SpatialSIR() Task {
	return &base{
		name: "spatial_sir", prior: dist.NewUniformCube(0, 1, 2),
		paramLabels: []string{"β", "γ"}, dataDim: 3 * sirGrid * sirGrid,
		row: spatialSIR,
	}
}

func spatialSIR(rng *rand.Rand, theta, x []float64) {
	const n = sirGrid * sirGrid
	beta, gamma := theta[0], theta[1]
	inf := make([]uint8, n)
	rec := make([]uint8, n)
	nextInf := make([]uint8, n)
	nextRec := make([]uint8, n)
	cnt := make([]uint8, n) // infected cells in each cell's 3×3 neighbourhood
	for k := 1 + dist.Poisson(rng, 3); k > 0; k-- {
		i, j := rng.IntN(sirGrid), rng.IntN(sirGrid)
		inf[i*sirGrid+j] = 1
	}
	for step := 0; step < sirSteps; step++ {
		// The 3×3 convolution of the infected image (zero outside the lattice).
		clear(cnt)
		infected := false
		for c, v := range inf {
			if v == 0 {
				continue
			}
			infected = true
			i, j := c/sirGrid, c%sirGrid
			for a := max(i-1, 0); a <= min(i+1, sirGrid-1); a++ {
				for b := max(j-1, 0); b <= min(j+1, sirGrid-1); b++ {
					cnt[a*sirGrid+b]++
				}
			}
		}
		if !infected {
			break
		}
		for c := 0; c < n; c++ {
			// Infection of a susceptible cell; a recovered cell is never infected.
			ni := inf[c]
			if inf[c] == 0 && rec[c] == 0 && cnt[c] > 0 && float64(cnt[c])*beta/8 > rng.Float64() {
				ni = 1
			}
			if rec[c] != 0 {
				ni = 0
			}
			nextInf[c] = ni
			// Recovery of an infected cell.
			nr := rec[c]
			if inf[c] != 0 && gamma > rng.Float64() {
				nr = 1
			}
			nextRec[c] = nr
		}
		inf, nextInf = nextInf, inf
		rec, nextRec = nextRec, rec
	}
	for c := 0; c < n; c++ {
		x[c] = float64((1 - rec[c]) * (1 - inf[c]))
		x[n+c] = float64(inf[c])
		x[2*n+c] = float64(rec[c])
	}
}
