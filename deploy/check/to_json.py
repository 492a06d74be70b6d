"""Reads a stream of YAML documents (a rendered overlay) on stdin and prints them as one JSON
array, for tests/e2e/tests/deploy.rs to check."""
import json
import sys

import yaml

json.dump([d for d in yaml.safe_load_all(sys.stdin) if d is not None], sys.stdout)
