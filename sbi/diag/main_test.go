package diag

import (
	"testing"

	"github.com/gosbi/gosbi/internal/sbibmtest"
	"github.com/gosbi/gosbi/sbi/task"
)

// TestMain points GOSBI_DATA at the sbibm files when it is not set: see package sbibmtest.
func TestMain(m *testing.M) { sbibmtest.Main(m, task.DataDir) }
