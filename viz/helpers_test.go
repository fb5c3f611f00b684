package viz

import (
	"fmt"
	"strconv"
)

func itoa(i int) string                           { return strconv.Itoa(i) }
func fmtG4(v float64) string                      { return fmt.Sprintf("%.4g", v) }
func fmtSscanf(s string, v *float64) (int, error) { return fmt.Sscanf(s, "%g", v) }
