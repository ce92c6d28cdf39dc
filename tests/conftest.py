import sys
from pathlib import Path

# make tests/notebook_policy.py importable as a module by the tests
sys.path.insert(0, str(Path(__file__).parent))
