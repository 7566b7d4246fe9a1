package docx

import (
	"encoding/xml"
	"strconv"
	"strings"
)

// numRef is a paragraph's place in a list: numbering instance and level.
type numRef struct {
	id    string
	level int
}

// level is one level of a list definition.
type level struct {
	start  int
	format string // numFmt: "bullet", "decimal", "lowerLetter", …
	text   string // lvlText: "%1.", "%1.%2", "•"
}

// numbering holds the document's list definitions and the counters of the
// lists written so far.
type numbering struct {
	levels   map[string][]level // by numId
	counters map[string][]int   // by numId: the last number at each level
}

// parseNumbering reads numbering.xml.
func parseNumbering(data []byte) (*numbering, error) {
	type lvl struct {
		ILvl    string  `xml:"ilvl,attr"`
		Start   valAttr `xml:"start"`
		NumFmt  valAttr `xml:"numFmt"`
		LvlText valAttr `xml:"lvlText"`
	}
	var doc struct {
		Abstract []struct {
			ID     string `xml:"abstractNumId,attr"`
			Levels []lvl  `xml:"lvl"`
		} `xml:"abstractNum"`
		Nums []struct {
			ID       string  `xml:"numId,attr"`
			Abstract valAttr `xml:"abstractNumId"`
			Override []struct {
				ILvl          string   `xml:"ilvl,attr"`
				StartOverride *valAttr `xml:"startOverride"`
			} `xml:"lvlOverride"`
		} `xml:"num"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	abstract := map[string][]level{}
	for _, a := range doc.Abstract {
		var ls []level
		for _, l := range a.Levels {
			i := atoi(l.ILvl, -1)
			if i < 0 || i > 8 {
				continue
			}
			for len(ls) <= i {
				ls = append(ls, level{start: 1, format: "decimal"})
			}
			ls[i] = level{start: atoi(l.Start.Val, 1), format: l.NumFmt.Val, text: l.LvlText.Val}
		}
		abstract[a.ID] = ls
	}
	n := &numbering{levels: map[string][]level{}, counters: map[string][]int{}}
	for _, num := range doc.Nums {
		ls := append([]level(nil), abstract[num.Abstract.Val]...)
		for _, o := range num.Override {
			if i := atoi(o.ILvl, -1); i >= 0 && i < len(ls) && o.StartOverride != nil {
				ls[i].start = atoi(o.StartOverride.Val, ls[i].start)
			}
		}
		n.levels[num.ID] = ls
	}
	return n, nil
}

// marker returns the list marker of the next paragraph at ref ("•",
// "3.", "2.1", "b)"), counting it. Unknown lists are bullets.
func (n *numbering) marker(ref numRef) string {
	if ref.id == "0" { // numId 0 takes a style's numbering off
		return ""
	}
	if n == nil {
		return "•"
	}
	ls := n.levels[ref.id]
	if ref.level < 0 || ref.level >= len(ls) {
		return "•"
	}
	l := ls[ref.level]
	switch l.format {
	case "bullet":
		return "•"
	case "none":
		return ""
	}
	c := n.counters[ref.id]
	for len(c) < len(ls) {
		c = append(c, 0)
	}
	if c[ref.level] == 0 {
		c[ref.level] = l.start
	} else {
		c[ref.level]++
	}
	for i := ref.level + 1; i < len(c); i++ { // deeper levels restart
		c[i] = 0
	}
	n.counters[ref.id] = c
	text := l.text
	if text == "" {
		text = "%" + strconv.Itoa(ref.level+1) + "."
	}
	var sb strings.Builder
	for i := 0; i < len(text); i++ {
		if text[i] == '%' && i+1 < len(text) && text[i+1] >= '1' && text[i+1] <= '9' {
			k := int(text[i+1] - '1')
			v := 0
			if k < len(c) {
				v = max(c[k], 1)
			}
			format := "decimal"
			if k < len(ls) {
				format = ls[k].format
			}
			sb.WriteString(formatNumber(v, format))
			i++
			continue
		}
		sb.WriteByte(text[i])
	}
	return strings.TrimSpace(sb.String())
}

// formatNumber writes v in a list number format.
func formatNumber(v int, format string) string {
	switch format {
	case "lowerLetter":
		return letters(v, 'a')
	case "upperLetter":
		return letters(v, 'A')
	case "lowerRoman":
		return strings.ToLower(roman(v))
	case "upperRoman":
		return roman(v)
	}
	return strconv.Itoa(v)
}

// letters writes v as Word does: a…z, then aa…zz, aaa…
func letters(v int, base byte) string {
	if v < 1 {
		return strconv.Itoa(v)
	}
	return strings.Repeat(string(base+byte((v-1)%26)), min((v-1)/26+1, 10))
}

func roman(v int) string {
	if v < 1 || v > 3999 {
		return strconv.Itoa(v)
	}
	var sb strings.Builder
	for _, p := range []struct {
		n int
		s string
	}{{1000, "M"}, {900, "CM"}, {500, "D"}, {400, "CD"}, {100, "C"}, {90, "XC"}, {50, "L"}, {40, "XL"}, {10, "X"}, {9, "IX"}, {5, "V"}, {4, "IV"}, {1, "I"}} {
		for v >= p.n {
			sb.WriteString(p.s)
			v -= p.n
		}
	}
	return sb.String()
}
