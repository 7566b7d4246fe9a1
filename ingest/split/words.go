package split

// The word lists that decide whether a period ends a sentence. They are
// matched case-sensitively: "Art." and "No." are abbreviations, but "art."
// at the end of "modern art." is a word, and "no." is both, so each spelling
// is listed as it is written.

// abbrevKind says how a period after an abbreviation behaves.
type abbrevKind uint8

const (
	// notAbbrev: an ordinary word; its period ends the sentence when a
	// plausible sentence start follows.
	notAbbrev abbrevKind = iota
	// abbrevMaybe: the period usually belongs to the abbreviation ("Fig. 2",
	// "Jr. (1924", "K. A. Applegate") but can also end the sentence ("…, Inc.
	// It was…"); it ends one only before a word that typically starts
	// sentences (see starters).
	abbrevMaybe
	// abbrevNever: the abbreviation never ends a sentence ("e.g. The Beatles",
	// "Mr. The" does not occur).
	abbrevNever
)

// abbrevs lists abbreviations (without their final period). Single letters
// (initials) and dotted acronyms such as U.S. and Ph.D. are recognised by
// shape in wordBefore and need not be listed.
var abbrevs = map[string]abbrevKind{}

func init() {
	never := []string{
		"e.g", "i.e", "eg", "ie", "cf", "vs", "viz", "Mr", "Mrs", "Ms",
		"Messrs", "Mmes", "Mme", "Mlle", "Prof", "Profs", "Cf", "Vs",
	}
	maybe := []string{
		// people and titles
		"Dr", "Drs", "Jr", "Sr", "Snr", "Jnr", "Rev", "Hon", "Fr", "Br",
		"St", "Sts", "Gen", "Col", "Lt", "Maj", "Capt", "Cpt", "Sgt", "Cpl",
		"Pvt", "Cmdr", "Adm", "Brig", "Gov", "Sen", "Rep", "Pres", "Supt",
		"Insp", "Esq", "Mt", "Ft", "Ave", "Blvd", "Rd", "Hwy", "Dept",
		"Univ", "Assn", "Assoc", "Bros", "Co", "Corp", "Inc", "Ltd", "Plc",
		"LLC", "Mfg", "Intl", "Natl", "Govt",
		// references into documents
		"Fig", "Figs", "fig", "figs", "No", "Nos", "no", "nos", "Vol",
		"Vols", "vol", "vols", "pp", "Pp", "Eq", "Eqs", "eq", "eqs", "Ch",
		"ch", "Chap", "chap", "Sec", "Secs", "sec", "Sect", "sect", "Art",
		"Arts", "Ref", "Refs", "ref", "refs", "Eds", "ed",
		"eds", "Para", "para", "Pt", "pt", "Tab", "Appx",
		"Ex", "Op", "op", "cit", "ibid", "Ibid",
		"Suppl", "suppl", "Stat", "Ser", "ser", "Repr", "repr", "Trans",
		"trans", "Comp", "Orig", "Nr", "nr",
		// Latin and general
		"etc", "al", "approx", "Approx", "ca", "Ca", "cca", "est",
		"Est", "incl", "Incl", "excl", "resp", "esp", "Esp", "misc",
		"min", "max", "avg", "Min", "Max", "Avg", "sq",
		"ff", "seq", "sqq", "fl", "lit", "circa",
		"Var", "subsp", "ssp", "spp", "sp", "cv", "syn", "Tel", "tel",
		"ext", "Ext", "dept",
		// months and days
		"Jan", "Feb", "Mar", "Apr", "Jun", "Jul", "Aug", "Sep", "Sept",
		"Oct", "Nov", "Dec", "Mon", "Tue", "Tues", "Wed", "Thu", "Thur",
		"Thurs", "Fri", "Sat",
	}
	for _, w := range maybe {
		abbrevs[w] = abbrevMaybe
	}
	for _, w := range never {
		abbrevs[w] = abbrevNever
	}
}

// starters are words that commonly begin English sentences and are not
// names. After an abbrevMaybe word, a period ends the sentence only when one
// of these follows: "…founded by Apple Inc. It was…" splits, "Henry J.
// Kaiser" and "Fig. 2" do not. Title case only, as they appear after a
// sentence end.
var starters = map[string]bool{}

func init() {
	for _, w := range []string{
		"A", "An", "The", "This", "That", "These", "Those", "There", "Here",
		"He", "She", "It", "They", "We", "I", "You", "His", "Her", "Its",
		"Their", "Our", "My", "Your", "Him", "Them", "Us",
		"In", "On", "At", "As", "By", "For", "From", "With", "Without",
		"To", "Of", "Into", "Upon", "Under", "Over", "After", "Before",
		"During", "Since", "Until", "Through", "Throughout", "Between",
		"Among", "Within", "Across", "Against", "Along", "Around", "Despite",
		"According", "Following", "Unlike", "Like", "Besides", "Beyond",
		"And", "But", "Or", "Nor", "So", "Yet", "If", "When", "While",
		"Whereas", "Where", "Although", "Though", "Because", "Unless",
		"Once", "Whether", "What", "Which", "Who", "Whom", "Whose", "Why",
		"How", "However", "Moreover", "Furthermore", "Therefore", "Thus",
		"Hence", "Also", "Then", "Still", "Instead", "Indeed", "Meanwhile",
		"Nevertheless", "Nonetheless", "Otherwise", "Finally", "First",
		"Second", "Third", "Later", "Earlier", "Today", "Now", "Currently",
		"Previously", "Originally", "Initially", "Recently", "Eventually",
		"Subsequently", "Additionally", "Consequently", "Similarly",
		"Accordingly", "Notably", "Overall", "Together", "Both", "Each",
		"Every", "All", "Some", "Many", "Most", "Much", "More", "Several",
		"Few", "Other", "Others", "Another", "Such", "One", "Two", "Three",
		"No", "Not", "None", "Only", "Even", "Just", "Neither", "Either",
		"Is", "Are", "Was", "Were", "Do", "Does", "Did", "Can", "Could",
		"Will", "Would", "Should", "May", "Might", "Must", "Has", "Have",
		"Had", "Let", "Please", "See", "Note", "Yes",
	} {
		starters[w] = true
	}
}
