declare module 'svg-to-pdfkit' {
  /** Draws an SVG document onto a PDFKit page at (x, y) (svg-to-pdfkit's one export). */
  function SVGtoPDF(
    doc: PDFKit.PDFDocument,
    svg: string,
    x: number,
    y: number,
    options?: { width?: number; height?: number; preserveAspectRatio?: string; assumePt?: boolean },
  ): void;
  export default SVGtoPDF;
}
