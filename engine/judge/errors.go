package judge

import "errors"

// ErrUnreadable means the judge never answered with a rating citelens
// could read, after every try; the message quotes its last reply.
var ErrUnreadable = errors.New("the judge's reply holds no rating")
