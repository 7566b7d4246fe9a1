// Package termimage shows pictures in a terminal: the kitty graphics
// protocol with Unicode placeholders, sixel, iTerm2 inline images, and a
// half-block page map for every other terminal; and it finds out, by
// asking the terminal, which of them it speaks.
//
// Everything here returns strings and draws nothing: the caller decides
// when bytes reach the terminal. Under bubbletea v2, whose cell renderer
// drops image escapes written inside a view, that means:
//
//   - kitty: send KittyTransmit out of band (tea.Raw), and put the lines of
//     KittyPlaceholders in the view, where they move and scroll as text;
//   - sixel and iTerm2: leave the picture's cells blank in the view and,
//     once the frame that blanks them is on screen, write At(x, y, image);
//   - blocks: PageMap's lines are ordinary styled text.
//
// # Caveats
//
//   - Terminals that answer the kitty graphics query but draw placeholder
//     characters as boxes (WezTerm, Konsole, kitty before 0.28 and 0.29.0)
//     get no placeholders: Detector picks another protocol for them.
//   - Inside tmux, images reach the terminal only through tmux's
//     passthrough (set -g allow-passthrough on) and only when asked for by
//     name; Passthrough wraps a sequence for it. Queries are answered by
//     tmux itself, so detection there ends in blocks, as it should.
//   - A sixel or iTerm2 picture is pixels the terminal keeps until text is
//     written over them: the caller clears the screen when the picture's
//     place changes (resize, leaving the page view).
package termimage
