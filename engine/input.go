package engine

import (
	"fmt"
	"strings"

	"github.com/docket-engine/docket/events"
)

// TurnInput is what the user sends to start a turn: the prompt as typed
// (with @ references already expanded by the caller, see engine/attach),
// images as data URLs, and the attached files' content. All of it is
// journaled in the user_turn record, so resume and replay send the model
// the same conversation without reading the disk again.
type TurnInput struct {
	Text        string
	Images      []string
	Attachments []events.Attachment
}

// userItem is the conversation item of a user turn: the prompt followed by
// each attached file in a delimited block the model can tell apart from
// the prompt.
func userItem(text string, images []string, atts []events.Attachment) events.Item {
	return events.Item{Type: events.ItemMessage, Role: "user", Text: UserText(text, atts), Images: images}
}

// UserText is the text the model is sent for a prompt with attachments:
// the prompt, then each file as
//
//	<attached_file path="PATH">
//	CONTENT
//	</attached_file>
//
// with a note when the file was cut at the size cap.
func UserText(text string, atts []events.Attachment) string {
	if len(atts) == 0 {
		return text
	}
	var b strings.Builder
	b.WriteString(text)
	for _, a := range atts {
		fmt.Fprintf(&b, "\n\n<attached_file path=%q>\n%s", a.Path, a.Content)
		if !strings.HasSuffix(a.Content, "\n") {
			b.WriteString("\n")
		}
		if a.Truncated {
			fmt.Fprintf(&b, "[truncated: the first %d of %d bytes]\n", len(a.Content), a.Size)
		}
		b.WriteString("</attached_file>")
	}
	return b.String()
}
