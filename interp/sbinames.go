package interp

import "strings"

// pythonSBINames maps names of Python's sbi package (lower case) that a newcomer may ask ?NAME
// for to gosbi's counterparts: the first of each entry is a name ?NAME documents, the rest says
// how it differs. TestHelpPythonSBINames checks that every first name has documentation.
var pythonSBINames = map[string][2]string{
	"pairplot":                      {"viz.Corner", "viz.CornerWith sets names, labels and the true parameters"},
	"marginal_plot":                 {"viz.Marginals", ""},
	"conditional_pairplot":          {"viz.ConditionalPairs", ""},
	"simulate_for_sbi":              {"sbi.Simulate", "a function of one θ; sbi.SimulateBatch takes a type that fills a batch"},
	"posterior_nn":                  {"sbi.NPEConfig", "the flow's settings, passed to sbi.NewNPE"},
	"likelihood_nn":                 {"sbi.NLEConfig", "the flow's settings, passed to sbi.NewNLE"},
	"classifier_nn":                 {"sbi.NREConfig", "the classifier's settings, passed to sbi.NewNRE"},
	"npe":                           {"sbi.NewNPE", ""},
	"snpe":                          {"sbi.Sequential", "rounds for one observation with any estimator, from sbi.NewNPE"},
	"nle":                           {"sbi.NewNLE", ""},
	"snle":                          {"sbi.Sequential", "rounds for one observation with any estimator, from sbi.NewNLE"},
	"nre":                           {"sbi.NewNRE", ""},
	"snre":                          {"sbi.Sequential", "rounds for one observation with any estimator, from sbi.NewNRE"},
	"npe_a":                         {"sbi.NewNPE", "one round; sbi.Sequential runs rounds"},
	"npe_c":                         {"sbi.NewNPE", "one round; sbi.Sequential with Method sbi.AtomicProposals is SNPE_C's rounds"},
	"snpe_a":                        {"sbi.Sequential", "rounds for one observation; NPE's default is truncated proposals (TSNPE)"},
	"snpe_c":                        {"sbi.Sequential", "with SequentialConfig{Method: sbi.AtomicProposals} (APT's atomic loss)"},
	"nle_a":                         {"sbi.NewNLE", ""},
	"snle_a":                        {"sbi.Sequential", "rounds for one observation with any estimator, from sbi.NewNLE"},
	"nre_a":                         {"sbi.NewNRE", "sbi.NREConfig{Loss: sbi.NREA}"},
	"nre_b":                         {"sbi.NewNRE", "sbi.NREConfig{Loss: sbi.NREB}"},
	"nre_c":                         {"sbi.NewNRE", "sbi.NREConfig{Loss: sbi.NREC}"},
	"snre_a":                        {"sbi.Sequential", "rounds for one observation with any estimator, from sbi.NewNRE"},
	"snre_b":                        {"sbi.Sequential", "rounds for one observation with any estimator, from sbi.NewNRE"},
	"snre_c":                        {"sbi.Sequential", "rounds for one observation with any estimator, from sbi.NewNRE"},
	"bnre":                          {"calib.NewBalanceRegularizer", "an NRE trained with it (TrainConfig.Regularizer) is a BNRE"},
	"fmpe":                          {"sbi.NewFMPE", ""},
	"mnle":                          {"sbi.NewMNLE", ""},
	"append_simulations":            {"sbi.NPE.Train", "Train takes θ and x and trains at once"},
	"build_posterior":               {"sbi.NPE.Posterior", "the posterior at one observation"},
	"mcmcposterior":                 {"sbi.SamplerConfig", `Method "mcmc" in the estimator's Sampler`},
	"run_sbc":                       {"diag.SBC", ""},
	"check_sbc":                     {"diag.SBCECDF", "its Verdict judges the ranks of diag.SBC"},
	"sbc_rank_plot":                 {"viz.SBCRanks", "viz.SBCECDF draws the ECDF form"},
	"run_tarp":                      {"diag.TARP", ""},
	"check_tarp":                    {"diag.TARP", "its ATC and KSPValue"},
	"plot_tarp":                     {"viz.TARP", ""},
	"c2st":                          {"diag.C2ST", ""},
	"lc2st":                         {"diag.NewLC2ST", ""},
	"cnnembedding":                  {"sbi.CNN1DEmbedding", "sbi.CNN2DEmbedding for images"},
	"fcembedding":                   {"sbi.MLPEmbedding", ""},
	"permutationinvariantembedding": {"sbi.DeepSetEmbedding", ""},
}

// pythonSBIHint returns, for a name of Python's sbi (the last part of name, in any case), a
// sentence naming gosbi's counterpart, and "" for other names.
func pythonSBIHint(name string) string {
	last := strings.ToLower(name[strings.LastIndexByte(name, '.')+1:])
	e, ok := pythonSBINames[last]
	if !ok {
		return ""
	}
	hint := "Python sbi's " + last + " is " + e[0] + " here (?" + e[0] + ")"
	if e[1] != "" {
		hint += "; " + e[1]
	}
	return hint
}

// pythonSBIPage returns the documentation of a name that gosbi does not define: for a name of
// Python's sbi, a line that says so and names gosbi's counterpart; for other names, false.
func pythonSBIPage(name string) (string, bool) {
	hint := pythonSBIHint(name)
	if hint == "" {
		return "", false
	}
	return name + " is not defined: " + hint, true
}
