package themes

import "errors"

// ErrUnknownTheme is returned for a theme name that is not one of Names().
var ErrUnknownTheme = errors.New("unknown theme")
