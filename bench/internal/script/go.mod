module github.com/toolcall/toolcall/bench/internal/script

go 1.26

require github.com/sashabaranov/go-openai v1.43.0
