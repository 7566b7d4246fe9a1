package textproc

import "fmt"

// ByteSize writes a byte count as people read file sizes, in powers of
// 1024: "1000 bytes", "2.0 KB", "82 KB", "32 MB", "1.0 GB".
func ByteSize(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d bytes", n)
	}
	v, unit := float64(n)/1024, 0
	for v >= 1024 && unit < 4 {
		v /= 1024
		unit++
	}
	if v < 10 {
		return fmt.Sprintf("%.1f %cB", v, "KMGTP"[unit])
	}
	return fmt.Sprintf("%.0f %cB", v, "KMGTP"[unit])
}
