import { useEffect, useRef } from 'preact/hooks';
import { BarChart, LineChart } from 'echarts/charts';
import {
  AriaComponent,
  DataZoomComponent,
  GridComponent,
  LegendComponent,
  MarkLineComponent,
  MarkPointComponent,
  TooltipComponent,
} from 'echarts/components';
import * as echarts from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';
import type { EChartsCoreOption } from 'echarts/core';

// Only what the dashboard draws: the bundle stays a fraction of the full library.
echarts.use([
  BarChart,
  LineChart,
  AriaComponent,
  DataZoomComponent,
  GridComponent,
  LegendComponent,
  MarkLineComponent,
  MarkPointComponent,
  TooltipComponent,
  SVGRenderer,
]);

export type ChartOption = EChartsCoreOption;

/** Colours with at least 4.5:1 contrast on white (WCAG AA for the text they label too). */
export const COLORS = ['#1d4ed8', '#b45309', '#047857', '#7c3aed', '#be123c', '#0f766e'];

/**
 * One ECharts chart. `label` is the accessible name. ECharts' aria component writes its description
 * into the container's aria-label (replacing ours on every setOption), so the label is handed to it as
 * that description instead of letting it generate one from the series.
 */
export function Chart(props: { option: ChartOption; label: string; height?: number; testId?: string }) {
  const el = useRef<HTMLDivElement>(null);
  const chart = useRef<echarts.ECharts | null>(null);
  useEffect(() => {
    const node = el.current!;
    const c = echarts.init(node, null, { renderer: 'svg' });
    chart.current = c;
    const observer = new ResizeObserver(() => c.resize());
    observer.observe(node);
    return () => {
      observer.disconnect();
      c.dispose();
    };
  }, []);
  useEffect(() => {
    chart.current?.setOption(
      {
        aria: { enabled: true, label: { description: props.label } },
        color: COLORS,
        animation: false,
        textStyle: { color: '#1f2937' },
        ...props.option,
      },
      true,
    );
  }, [props.option, props.label]);
  return (
    <div
      class="chart"
      ref={el}
      role="img"
      aria-label={props.label}
      data-testid={props.testId}
      style={{ height: `${props.height ?? 280}px` }}
    />
  );
}

/** A line with its 95% margin as a shaded band (lower bound + stacked band width). */
export function bandSeries(
  name: string,
  points: { x: string; value: number; margin: number }[],
  color: string,
): object[] {
  const stack = `band-${name}`;
  return [
    {
      name: `${name} lower`,
      type: 'line',
      data: points.map((p) => [p.x, p.value - p.margin]),
      stack,
      symbol: 'none',
      lineStyle: { opacity: 0 },
      tooltip: { show: false },
      silent: true,
    },
    {
      name: `${name} 95% margin`,
      type: 'line',
      data: points.map((p) => [p.x, 2 * p.margin]),
      stack,
      symbol: 'none',
      lineStyle: { opacity: 0 },
      areaStyle: { color, opacity: 0.18 },
      tooltip: { show: false },
      silent: true,
    },
    {
      name,
      type: 'line',
      data: points.map((p) => [p.x, p.value]),
      symbol: 'none',
      lineStyle: { color, width: 2 },
      itemStyle: { color },
    },
  ];
}
