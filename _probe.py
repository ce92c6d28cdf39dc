import sys
sys.path.insert(0, '/tmp/lead/probe7')
exec(open('/tmp/lead/probe7/prelude.py').read())
import re
src = open('/tmp/lead/probe7/cases.py').read()
