package generate

import "testing"

// TestUnanswerable: an answer saying the shown text lacks the answer is
// an answer, uncited by its nature (Settle keeps it); a statement about
// the world in negative words is not one.
func TestUnanswerable(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]bool{
		"Unanswerable.": true,
		"The document does not mention his birth date.":                       true,
		"The question cannot be answered from the given context.":             true,
		"There is no information about it in the documents.":                  true,
		"The word is not in the document.":                                    true,
		"The company does not have a subsidiary in Ghana.":                    false,
		"No data were collected in 1911.":                                     false,
		"Scott Derrickson is an American director.":                           false,
		"The survey could not find the barn, as the report says in its text.": false,
	} {
		if got := Unanswerable(text); got != want {
			t.Errorf("Unanswerable(%q) = %v, want %v", text, got, want)
		}
	}
}
