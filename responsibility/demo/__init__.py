"""responsibility's part of the demo (common.demo): costs, the five questions' answers and the
matrices (step.py), from data.yaml and the texts en.yaml / zh-hans.yaml."""

from pathlib import Path

from common.demo import DemoFiles

FILES = DemoFiles(Path(__file__).resolve().parent)
