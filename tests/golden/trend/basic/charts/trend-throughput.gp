# trend chart of scenario throughput, written by netsurvey trend; edit and run
#   gnuplot trend-throughput.gp
set terminal svg size 760,420 noenhanced font "sans,11" background "white"
set output "trend-throughput.svg"
set title 'trend: throughput, throughput (Mbit/s), ipv4; bands: 95 % CI; circled: beyond the CI of the first run by more than 5.0 %'
set grid ytics lc rgb "#dddddd"
set border 3
set tics nomirror
set ylabel "Mbit/s"
set xrange [-0.5:3.5]
set style fill transparent solid 0.15 noborder
set key outside right
set xtics rotate by -30 ('#1 20261101T150000Z-t001' 0, '#2 20261108T150000Z-t002' 1, '#3 20261115T150000Z-t003' 2, '#5 20261122T150000Z-t004' 3)
plot "trend-throughput.dat" index 0 using 1:3:4 with filledcurves lc 1 notitle, \
     "" index 0 using 1:2 with linespoints lc 1 pt 7 ps 0.6 title '1 > 2', \
     "" index 0 using 1:($5 > 0 ? $2 : NaN) with points pt 6 ps 2 lc rgb "#b42318" notitle, \
     "trend-throughput.dat" index 1 using 1:3:4 with filledcurves lc 2 notitle, \
     "" index 1 using 1:2 with linespoints lc 2 pt 7 ps 0.6 title '2 > 1', \
     "" index 1 using 1:($5 > 0 ? $2 : NaN) with points pt 6 ps 2 lc rgb "#b42318" notitle
