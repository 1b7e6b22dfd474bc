package main

import (
	"context"

	"github.com/toolcall/toolcall/tool"
)

// The seed article's demo data.
var weatherData = map[string]string{
	"北京": "晴，气温26℃，东南风2级",
	"上海": "多云，气温28℃，湿度65%",
	"广州": "阵雨，气温30℃，体感较热",
}

type weatherArgs struct {
	City string `json:"city" jsonschema:"description=城市中文名，例如：北京、上海、广州。只填城市名，不要带“市”字或省份。"`
}

// weatherTool: descriptions are written for the model, with the trigger condition and
// examples, as the seed article recommends.
func weatherTool() *tool.Tool {
	return tool.New("get_weather",
		"查询指定城市的当前天气情况（天气状况、气温、风力或湿度）。当用户询问某个城市的天气、温度、是否下雨、要不要带伞时使用。一次调用查询一个城市；多个城市请分别调用。",
		func(ctx context.Context, in weatherArgs) (string, error) {
			if w, ok := weatherData[in.City]; ok {
				return w, nil
			}
			return in.City + "暂无数据，可以尝试其他城市", nil
		})
}

type calcArgs struct {
	Expression string `json:"expression" jsonschema:"description=要计算的算术表达式，例如：12.5 * 4 + 2、(3 + 5) / 2、2 ** 10。支持 + - * / %、** 表示乘方、括号，以及 sqrt abs floor ceil round ln log10 pow 函数。"`
}

func calculateTool() *tool.Tool {
	return tool.New("calculate",
		"执行四则运算等算术计算并返回精确结果。当用户提出任何数学计算需求时使用，不要心算。乘方请写 **（例如 2 ** 10），不要写 ^。",
		func(ctx context.Context, in calcArgs) (string, error) {
			v, err := Calculate(in.Expression)
			if err != nil {
				return "", err
			}
			return in.Expression + " = " + v, nil
		})
}
