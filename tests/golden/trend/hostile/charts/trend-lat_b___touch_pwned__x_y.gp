# trend chart of scenario lat_b___touch_pwned__x_y, written by netsurvey trend; edit and run
#   gnuplot trend-lat_b___touch_pwned__x_y.gp
set terminal svg size 760,420 noenhanced font "sans,11" background "white"
set output "trend-lat_b___touch_pwned__x_y.svg"
set title 'trend: lat<b>''`touch pwned`@x|y, mean RTT (us), ipv4; bands: 95 % CI; circled: beyond the CI of the first run by more than 5.0 %'
set grid ytics lc rgb "#dddddd"
set border 3
set tics nomirror
set ylabel "us"
set xrange [-0.5:1.5]
set style fill transparent solid 0.15 noborder
set key outside right
set xtics rotate by -30 ('#1 20261101T150000Z-''`id`|<x>,"y"' 0, '#2 20261102T150000Z-<b>&amp;''@z' 1)
plot "trend-lat_b___touch_pwned__x_y.dat" index 0 using 1:3:4 with filledcurves lc 1 notitle, \
     "" index 0 using 1:2 with linespoints lc 1 pt 7 ps 0.6 title '"q,1" <z2> > a&b', \
     "" index 0 using 1:($5 > 0 ? $2 : NaN) with points pt 6 ps 2 lc rgb "#b42318" notitle, \
     "trend-lat_b___touch_pwned__x_y.dat" index 1 using 1:3:4 with filledcurves lc 2 notitle, \
     "" index 1 using 1:2 with linespoints lc 2 pt 7 ps 0.6 title 'a&b > "q,1" <z2>', \
     "" index 1 using 1:($5 > 0 ? $2 : NaN) with points pt 6 ps 2 lc rgb "#b42318" notitle
