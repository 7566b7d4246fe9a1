package docx

import (
	"encoding/xml"
	"strconv"
	"strings"
)

// style is what a paragraph style tells: its heading level and list.
type style struct {
	name       string
	basedOn    string
	outlineLvl int // 0-based as stored, -1 if unset
	num        numRef
}

// styles maps style ids to styles.
type styles map[string]*style

// parseStyles reads styles.xml; a part that cannot be parsed leaves
// paragraphs unstyled rather than failing the document.
func parseStyles(data []byte) (styles, error) {
	var doc struct {
		Styles []struct {
			Type    string  `xml:"type,attr"`
			ID      string  `xml:"styleId,attr"`
			Name    valAttr `xml:"name"`
			BasedOn valAttr `xml:"basedOn"`
			PPr     struct {
				OutlineLvl *valAttr `xml:"outlineLvl"`
				NumPr      *struct {
					ILvl  *valAttr `xml:"ilvl"`
					NumID *valAttr `xml:"numId"`
				} `xml:"numPr"`
			} `xml:"pPr"`
		} `xml:"style"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	out := styles{}
	for _, s := range doc.Styles {
		if s.Type != "" && s.Type != "paragraph" {
			continue
		}
		st := &style{name: s.Name.Val, basedOn: s.BasedOn.Val, outlineLvl: -1}
		if s.PPr.OutlineLvl != nil {
			st.outlineLvl = atoi(s.PPr.OutlineLvl.Val, -1)
		}
		if n := s.PPr.NumPr; n != nil {
			if n.NumID != nil {
				st.num.id = n.NumID.Val
			}
			if n.ILvl != nil {
				st.num.level = atoi(n.ILvl.Val, 0)
			}
		}
		out[s.ID] = st
	}
	return out, nil
}

// valAttr is an element whose w:val attribute carries its value.
type valAttr struct {
	Val string `xml:"val,attr"`
}

// headingLevel returns the heading level (1 the top) of style id, or 0
// if its paragraphs are body text: from the outline level the style (or
// one it is based on) sets, else from a name such as "heading 2".
func (ss styles) headingLevel(id string) int {
	for i, s := 0, ss[id]; s != nil && i < 16; i, s = i+1, ss[s.basedOn] {
		if s.outlineLvl >= 0 {
			if s.outlineLvl < 9 {
				return s.outlineLvl + 1
			}
			return 0
		}
		if n := strings.ToLower(strings.TrimSpace(s.name)); strings.HasPrefix(n, "heading ") {
			if l, err := strconv.Atoi(strings.TrimPrefix(n, "heading ")); err == nil && l >= 1 && l <= 9 {
				return l
			}
		}
	}
	return 0
}

// isNamed reports whether style id (or one it is based on) has the given
// name, compared case-insensitively ("Title", "Caption").
func (ss styles) isNamed(id, name string) bool {
	for i, s := 0, ss[id]; s != nil && i < 16; i, s = i+1, ss[s.basedOn] {
		if strings.EqualFold(s.name, name) {
			return true
		}
	}
	return strings.EqualFold(id, name)
}

// list returns the numbering a style gives its paragraphs, if any.
func (ss styles) list(id string) numRef {
	for i, s := 0, ss[id]; s != nil && i < 16; i, s = i+1, ss[s.basedOn] {
		if s.num.id != "" {
			return s.num
		}
	}
	return numRef{}
}

func atoi(s string, def int) int {
	if v, err := strconv.Atoi(strings.TrimSpace(s)); err == nil {
		return v
	}
	return def
}
