import CLibRaw
import CTIFF
import CLCMS2
import CHeif
import CJPEG
import CZlib
import CShims
import DarkroomCore
