package tasklife

import (
	"encoding/json"
	"fmt"

	pb "github.com/tasklife-dev/tasklife/clients/go/tasklifev1"
)

// The content types of [TextPayload] and [JSONPayload].
const (
	ContentTypeText = "text/plain; charset=utf-8"
	ContentTypeJSON = "application/json"
)

// BytesPayload is data with its MIME type, as a task's input (CreateTaskRequest.Input) or
// the result a [ResultHandler] returns. The server stores it as given; it refuses data
// without a content type, and data over its --max-payload-bytes (256 KiB by default).
func BytesPayload(data []byte, contentType string) *pb.TaskPayload {
	return &pb.TaskPayload{Data: data, ContentType: contentType}
}

// TextPayload is text, as "text/plain; charset=utf-8".
func TextPayload(text string) *pb.TaskPayload {
	return BytesPayload([]byte(text), ContentTypeText)
}

// JSONPayload is v encoded with encoding/json, as "application/json". A ResultHandler can
// end with `return tasklife.JSONPayload(v)`: an error encoding v fails the task.
func JSONPayload(v any) (*pb.TaskPayload, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("tasklife: JSONPayload: %w", err)
	}
	return BytesPayload(data, ContentTypeJSON), nil
}
