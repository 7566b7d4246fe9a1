package llm

import "github.com/citelens/citelens/internal/cost"

// Usage is the token accounting of one or more model calls, as the server
// reported it (or as estimated where it did not): internal/cost's, the
// type the answer record (citations.Usage) shares, so the client knows
// nothing of answers.
type Usage = cost.Usage
