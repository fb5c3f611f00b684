package viz

// DisplayBins is displayBins, the number of bins SBCRanks draws, for the external tests.
var DisplayBins = displayBins
